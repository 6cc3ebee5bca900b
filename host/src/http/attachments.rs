//! Images in prompts, as the 2026-08 host takes them: an inline part
//! `{type:'image', mediaType, data (base64), name?}` is stored once per session under
//! `sha256:<hex>` and the log keeps `{type:'image', attachment: {attachmentId, mediaType,
//! bytes, width, height, name?}}`; `session.attachment` reads the bytes back.
//!
//! A refused image is upstream's `attachment-error {reason}` with its message in the 2026-08
//! dialect (`TOO_MANY_IMAGES`, `IMAGE_TOO_LARGE`, `INVALID_IMAGE_BASE64`, `INVALID_IMAGE`,
//! `IMAGE_TYPE_MISMATCH`, and for a read `ATTACHMENT_NOT_REFERENCED`), `bad-request` with this
//! host's own words in the seed's. A media type outside the four is an invalid payload in both,
//! as upstream's schema refuses it before any attachment code runs.

use crate::app::App;
use crate::http::rpc::{custom_issue, internal, invalid_payload};
use crate::http::verbs::Refusal;
use crate::log::session::{Prompt, Session};
use crate::log::store::Image;
use agent_session_wire::PromptPayload;
use serde_json::{json, Value};

/// Upstream's per-image limit (its `imageLimits.maxImageBytes`).
pub const MAX_IMAGE_BYTES: usize = 20 * 1024 * 1024;
/// Upstream's per-message image count limit.
pub const MAX_IMAGES_PER_MESSAGE: usize = 20;
const MEDIA_TYPES: &[&str] = &["image/png", "image/jpeg", "image/webp", "image/gif"];

/// `session.prompt` in either dialect: its images stored, then the prompt queued or steering,
/// with the browser's `zone` where the 2026-08 dialect took one.
pub async fn prompt(app: &App, rpc_id: &str, p: PromptPayload, zone: Option<String>) -> Result<Value, Refusal> {
    let s = app.session(&p.session_id)?;
    let content = store_images(app, &s, p.content)?;
    let prompt = Prompt { client_time_zone: zone, ..Prompt::new(content, rpc_id.to_string()) };
    crate::agent::prompt(&app.base, &app.agent, &s, p.mode, prompt).await?;
    Ok(json!({ "accepted": true }))
}

/// The format the bytes are, by their signature (upstream refuses a declared type they are not).
fn sniff(d: &[u8]) -> Option<&'static str> {
    match d {
        [0x89, b'P', b'N', b'G', ..] => Some("image/png"),
        [0xFF, 0xD8, ..] => Some("image/jpeg"),
        [b'G', b'I', b'F', b'8', ..] => Some("image/gif"),
        [b'R', b'I', b'F', b'F', _, _, _, _, b'W', b'E', b'B', b'P', ..] => Some("image/webp"),
        _ => None,
    }
}

/// Replaces each inline image part of `content` with its stored reference.
#[allow(clippy::result_large_err)] // a refusal is made once per refused request, never in a loop
pub fn store_images(app: &App, s: &Session, content: Vec<Value>) -> Result<Vec<Value>, Refusal> {
    let count = content.iter().filter(|b| b.get("type").and_then(Value::as_str) == Some("image")).count();
    if count > MAX_IMAGES_PER_MESSAGE {
        return Err(Refusal::attachment(
            "TOO_MANY_IMAGES",
            format!("at most {MAX_IMAGES_PER_MESSAGE} images per message"),
            "Image batch exceeds the configured image-count limit.",
        ));
    }
    content
        .into_iter()
        .enumerate()
        .map(|(i, block)| match block.get("type").and_then(Value::as_str) {
            Some("image") if block.get("data").is_some() => store_one(app, s, i, &block),
            _ => Ok(block),
        })
        .collect()
}

#[allow(clippy::result_large_err)] // a refusal is made once per refused request, never in a loop
fn store_one(app: &App, s: &Session, at: usize, block: &Value) -> Result<Value, Refusal> {
    let media_type = block.get("mediaType").and_then(Value::as_str).unwrap_or_default();
    if !MEDIA_TYPES.contains(&media_type) {
        let issue = custom_issue(
            vec![json!("content"), json!(at), json!("mediaType")],
            &format!("must be one of {MEDIA_TYPES:?}"),
        );
        return Err(Refusal::Rpc(invalid_payload("session.prompt", vec![issue])));
    }
    let not_base64 = || {
        Refusal::attachment(
            "INVALID_IMAGE_BASE64",
            "image data is not valid base64",
            "Image upload is not canonical base64.",
        )
    };
    let text = block.get("data").and_then(Value::as_str).ok_or_else(not_base64)?;
    if text.len() / 4 * 3 > MAX_IMAGE_BYTES + 3 {
        return Err(Refusal::attachment(
            "IMAGE_TOO_LARGE",
            format!("an image is at most {MAX_IMAGE_BYTES} bytes"),
            "Image exceeds the configured byte limit.",
        ));
    }
    let data = base64_decode(text).ok_or_else(not_base64)?;
    if data.is_empty() {
        return Err(Refusal::attachment("INVALID_IMAGE", "image data is empty", "Image is empty."));
    }
    if sniff(&data).is_some_and(|t| t != media_type) {
        return Err(Refusal::attachment(
            "IMAGE_TYPE_MISMATCH",
            "image data is not of its mediaType",
            "Declared image type does not match its bytes.",
        ));
    }
    let (width, height) = dimensions(media_type, &data).ok_or_else(|| {
        Refusal::attachment(
            "INVALID_IMAGE",
            "image data is not a readable image",
            "Unsupported or malformed image data.",
        )
    })?;
    let name = block.get("name").and_then(Value::as_str).map(str::to_string);
    let image = Image {
        id: format!("sha256:{}", hex(&sha256(&data))),
        media_type: media_type.into(),
        width,
        height,
        name,
        data,
    };
    app.store.put_attachment(s.pk, &image).map_err(|e| Refusal::Rpc(internal(e)))?;
    Ok(json!({ "type": "image", "attachment": reference(&image) }))
}

fn reference(i: &Image) -> Value {
    let mut r = json!({
        "attachmentId": i.id, "mediaType": i.media_type, "bytes": i.data.len(), "width": i.width, "height": i.height,
    });
    if let Some(name) = &i.name {
        r["name"] = json!(name);
    }
    r
}

/// `session.attachment {sessionId, attachmentId}` → `{attachment, data}`.
#[allow(clippy::result_large_err)] // a refusal is made once per refused request, never in a loop
pub fn read(app: &App, s: &Session, id: &str) -> Result<Value, Refusal> {
    match app.store.attachment(s.pk, id).map_err(|e| Refusal::Rpc(internal(e)))? {
        Some(image) => Ok(json!({ "attachment": reference(&image), "data": base64_encode(&image.data) })),
        None => {
            let words = "Image is not referenced by this session.";
            Err(Refusal::attachment("ATTACHMENT_NOT_REFERENCED", words, words))
        }
    }
}

/// Width and height from the format's header (PNG, GIF, JPEG, WebP).
pub fn dimensions(media_type: &str, d: &[u8]) -> Option<(u64, u64)> {
    let be32 = |i: usize| Some(u32::from_be_bytes(d.get(i..i + 4)?.try_into().ok()?) as u64);
    let le16 = |i: usize| Some(u16::from_le_bytes(d.get(i..i + 2)?.try_into().ok()?) as u64);
    let be16 = |i: usize| Some(u16::from_be_bytes(d.get(i..i + 2)?.try_into().ok()?) as u64);
    let size = match media_type {
        "image/png" if d.starts_with(b"\x89PNG\r\n\x1a\n") && d.get(12..16) == Some(b"IHDR") => (be32(16)?, be32(20)?),
        "image/gif" if d.starts_with(b"GIF8") => (le16(6)?, le16(8)?),
        "image/jpeg" if d.starts_with(&[0xFF, 0xD8]) => {
            let mut i = 2;
            loop {
                if *d.get(i)? != 0xFF {
                    return None;
                }
                let marker = *d.get(i + 1)?;
                if matches!(marker, 0xC0..=0xCF) && !matches!(marker, 0xC4 | 0xC8 | 0xCC) {
                    break (be16(i + 7)?, be16(i + 5)?);
                }
                i += 2 + be16(i + 2)? as usize;
            }
        }
        "image/webp" if d.starts_with(b"RIFF") && d.get(8..12) == Some(b"WEBP") => match d.get(12..16)? {
            b"VP8X" => {
                let le24 = |i: usize| Some(le16(i)? | (*d.get(i + 2)? as u64) << 16);
                (le24(24)? + 1, le24(27)? + 1)
            }
            b"VP8 " => (le16(26)? & 0x3FFF, le16(28)? & 0x3FFF),
            b"VP8L" => {
                let b = u32::from_le_bytes(d.get(21..25)?.try_into().ok()?) as u64;
                ((b & 0x3FFF) + 1, ((b >> 14) & 0x3FFF) + 1)
            }
            _ => return None,
        },
        _ => return None,
    };
    (size.0 > 0 && size.1 > 0).then_some(size)
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

pub fn base64_encode(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, b)| n | (*b as u32) << (16 - 8 * i));
        for i in 0..4 {
            match i <= chunk.len() {
                true => out.push(B64[(n >> (18 - 6 * i) & 63) as usize] as char),
                false => out.push('='),
            }
        }
    }
    out
}

/// Standard base64 with optional padding; `None` for anything else.
pub fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let body = text.trim_end_matches('=');
    if text.len() - body.len() > 2 || body.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(body.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0);
    for c in body.bytes() {
        let v = B64.iter().position(|b| *b == c)? as u32;
        acc = acc << 6 | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// SHA-256 (FIPS 180-4): the content address upstream gives an image.
pub fn sha256(data: &[u8]) -> [u8; 32] {
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
        0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
        0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
        0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
        0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
        0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
        0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    ];
    let mut h: [u32; 8] =
        [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
    let mut msg = data.to_vec();
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&((data.len() as u64) * 8).to_be_bytes());
    for block in msg.chunks(64) {
        let mut w = [0u32; 64];
        for i in 0..16 {
            w[i] = u32::from_be_bytes(block[i * 4..i * 4 + 4].try_into().expect("4 bytes"));
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16].wrapping_add(s0).wrapping_add(w[i - 7]).wrapping_add(s1);
        }
        let mut v = h;
        for i in 0..64 {
            let s1 = v[4].rotate_right(6) ^ v[4].rotate_right(11) ^ v[4].rotate_right(25);
            let ch = (v[4] & v[5]) ^ (!v[4] & v[6]);
            let t1 = v[7].wrapping_add(s1).wrapping_add(ch).wrapping_add(K[i]).wrapping_add(w[i]);
            let s0 = v[0].rotate_right(2) ^ v[0].rotate_right(13) ^ v[0].rotate_right(22);
            let maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
            let t2 = s0.wrapping_add(maj);
            v = [t1.wrapping_add(t2), v[0], v[1], v[2], v[3].wrapping_add(t1), v[4], v[5], v[6]];
        }
        for (a, b) in h.iter_mut().zip(v) {
            *a = a.wrapping_add(b);
        }
    }
    let mut out = [0u8; 32];
    for (i, word) in h.iter().enumerate() {
        out[i * 4..i * 4 + 4].copy_from_slice(&word.to_be_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 1x1 PNG, as a browser's clipboard hands one over.
    pub const PNG_1X1: &str =
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

    #[test]
    fn sha256_matches_the_standard_vectors() {
        assert_eq!(hex(&sha256(b"")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assert_eq!(hex(&sha256(b"abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        let long = vec![b'a'; 1000];
        assert_eq!(hex(&sha256(&long)), "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3");
    }

    #[test]
    fn base64_round_trips_and_refuses_garbage() {
        for data in [&b""[..], b"f", b"fo", b"foo", b"foob", &[0, 255, 128, 7]] {
            assert_eq!(base64_decode(&base64_encode(data)).as_deref(), Some(data));
        }
        assert_eq!(base64_encode(b"foob"), "Zm9vYg==");
        assert_eq!(base64_decode("Zm9vYg"), Some(b"foob".to_vec()), "padding is optional");
        assert_eq!(base64_decode("Zm9v!"), None);
        assert_eq!(base64_decode("Z"), None);
    }

    #[test]
    fn image_sizes_come_from_their_headers() {
        let png = base64_decode(PNG_1X1).unwrap();
        assert_eq!(dimensions("image/png", &png), Some((1, 1)));
        // The id the from-source transcript (`tests/fixtures/wire/from-source/09`) carries.
        assert_eq!(hex(&sha256(&png)), "c414cd0e204de974f73753c7e28d7638e7b3691bb8b1a2bab6b25bb7fed7ce77");
        assert_eq!(dimensions("image/jpeg", &png), None, "the media type must match the bytes");
        let gif = b"GIF89a\x02\x00\x03\x00\x00\x00\x00";
        assert_eq!(dimensions("image/gif", gif), Some((2, 3)));
        let jpeg = [0xFF, 0xD8, 0xFF, 0xE0, 0, 4, 0, 0, 0xFF, 0xC0, 0, 11, 8, 0, 5, 0, 7, 3];
        assert_eq!(dimensions("image/jpeg", &jpeg), Some((7, 5)));
        assert_eq!(dimensions("image/png", b"\x89PNG"), None);
    }
}
