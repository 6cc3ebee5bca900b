//! A prompt's `clientTimeZone` (`session.prompt`, `subagent.prompt`), checked as upstream's
//! host does at b150a551b8, then kept on the user message's source.

use super::answer::Refused;
use serde_json::json;

/// A prompt's `clientTimeZone` checked as upstream does (`invalid-time-zone {value}`), to be
/// kept on its user message's source.
pub fn client_time_zone(zone: Option<String>) -> Result<Option<String>, Refused> {
    match zone {
        Some(z) if !time_zone(&z) => {
            let words = "clientTimeZone must be UTC or a valid IANA Area/Location name";
            Err(Refused::new("invalid-time-zone", words, json!({ "value": z })))
        }
        zone => Ok(zone),
    }
}

/// Upstream's browser-zone profile: `UTC`, or an IANA `Area/Location` name (a letter, then
/// letters, digits and `_+.-`; one or more `/`-parts of the same). Upstream then asks `Intl`
/// whether the zone exists and for its canonical name; this host carries no zone database, so
/// a well-formed name it does not know is kept as given.
fn time_zone(z: &str) -> bool {
    let part = |p: &str| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric() || "_+.-".contains(c));
    let mut parts = z.split('/');
    let first = parts.next().unwrap_or_default();
    z == "UTC"
        || (first.starts_with(|c: char| c.is_ascii_alphabetic()) && part(first) && z.contains('/') && parts.all(part))
}
