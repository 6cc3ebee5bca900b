//! The session verbs of the 2026-08 host (b150a551b8's method names and
//! shapes), over the one SQLite log, in `--wire 2026-08` and where they make sense the default
//! dialect.

mod common;

use agent_session_wire::Frame;
use common::*;
use serde_json::{json, Value};

fn upstream() -> Host {
    Host::start(&["--wire", "2026-08", "--chunk-delay-ms", "0"])
}

/// A 1x1 PNG.
const PNG_1X1: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/// A turn streaming for a while and `second` queued behind it: the queued item's id, as the
/// `session/queue` frame names it.
fn one_queued(host: &Host, sid: &str, second: &str) -> String {
    let mut mux = host.mux();
    host.prompt(sid, "queue", "first, a reply long enough to stream for a while");
    host.prompt(sid, "queue", second);
    let frames = mux.until(
        "one queued",
        |f| matches!(f, Frame::Queue(q) if q.items.value().as_array().is_some_and(|a| a.len() == 1)),
    );
    frames
        .iter()
        .rev()
        .find_map(|f| match &f.frame {
            Frame::Queue(q) => q.items.value()[0]["id"].as_str().map(str::to_string),
            _ => None,
        })
        .unwrap()
}

#[test]
fn rename_normalizes_the_title_and_publishes_it() {
    for wire in [&["--wire", "2026-08"][..], &[]] {
        let host = Host::start(wire);
        let sid = host.create();
        let mut mux = host.mux();
        let v = host.call("session.rename", json!({ "sessionId": sid, "title": "  Hello \t plan\u{7} " }));
        assert_eq!(v["title"], "Hello plan");
        assert!(v["seq"].is_u64());
        let long = host.call("session.rename", json!({ "sessionId": sid, "title": "é".repeat(50) }));
        assert_eq!(long["title"].as_str().unwrap().len(), 80, "cut at 80 bytes");
        // The 2026-08 dialect: the title projection; the seed's: a session/title frame.
        let frames = mux.until("the title", |f| match f {
            Frame::Projection(p) => p.key == "title" && p.value.value() == json!("é".repeat(40)),
            Frame::Title(t) => t.title == "é".repeat(40),
            _ => false,
        });
        assert!(!frames.is_empty());
        let items = host.call("session.list", json!({}))["items"].clone();
        let title = match wire.is_empty() {
            true => items[0]["title"].clone(),
            false => items[0]["projections"]["values"]["title"].clone(),
        };
        assert_eq!(title, json!("é".repeat(40)), "{items}");
    }
}

#[test]
fn slash_commands_log_their_run_and_take_arguments() {
    let host = upstream();
    let sid = host.create();
    let v = host
        .call("commands/execute", json!({ "args": { "agentId": sid, "line": "/feedback works well", "images": [] } }));
    assert_eq!(v["result"]["kind"], "success");
    let events = host.all_events(&sid);
    let run = events.iter().find(|e| e["type"] == "command/run").expect("command/run");
    assert_eq!((run["data"]["name"].clone(), run["data"]["args"].clone()), (json!("feedback"), json!("works well")));
    let done = events.iter().find(|e| e["type"] == "command/done").expect("command/done");
    assert_eq!(done["data"]["commandId"], v["commandId"]);
    let list = host.call("commands/list", json!({ "args": { "agentId": sid } }));
    let feedback = list.as_array().unwrap().iter().find(|c| c["name"] == "feedback").expect("listed");
    assert_eq!(feedback["input"]["hint"], "<text>");
    // `/feedback` without text is no command line this host knows.
    let none =
        host.envelope("commands/execute", json!({ "args": { "agentId": sid, "line": "/feedback", "images": [] } }));
    assert_eq!(none["result"], json!({ "ok": true }));
}

#[test]
fn an_image_prompt_is_stored_by_its_sha256_and_read_back() {
    let host = upstream();
    let sid = host.create();
    let content = json!([
        { "type": "text", "text": "what is in this picture?" },
        { "type": "image", "mediaType": "image/png", "data": PNG_1X1, "name": "dot.png" }
    ]);
    host.call("session.prompt", json!({ "sessionId": sid, "mode": "queue", "content": content }));
    let events = host.wait_turn_end(&sid, 1);
    let user = events.iter().find(|e| e["type"] == "user/message").expect("user/message");
    let image = &user["data"]["content"][1];
    let id = image["attachment"]["attachmentId"].as_str().expect("a reference, not the bytes").to_string();
    assert!(id.starts_with("sha256:") && id.len() == 7 + 64, "{id}");
    assert_eq!(image["attachment"]["width"], 1);
    assert!(image.get("data").is_none());
    let reply = events.iter().find(|e| e["type"] == "assistant/message").expect("a reply");
    let text = reply["data"]["message"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("1x1 image/png image of 70 bytes"), "the scripted agent echoes its size: {text}");
    let read = host.call("session.attachment", json!({ "sessionId": sid, "attachmentId": id }));
    assert_eq!(read["data"], PNG_1X1);
    assert_eq!(read["attachment"]["name"], "dot.png");
    // Another session does not hold it (upstream's `attachment-error`, below).
    let other = host.create();
    let err = host.call_err("session.attachment", json!({ "sessionId": other, "attachmentId": id }));
    assert_eq!(
        (&err["code"], &err["details"]["reason"]),
        (&json!("attachment-error"), &json!("ATTACHMENT_NOT_REFERENCED"))
    );
}

/// What upstream's `session.prompt` and `session.attachment` refuse, with its codes, messages
/// and reasons (b150a551b8 `api-proxy.ts` and `@deepseek-ai/attachment`); the seed dialect
/// answers `bad-request`.
#[test]
fn refused_images_are_attachment_errors_upstream_and_bad_request_in_the_seed_dialect() {
    let image = |media: &str, data: &str| json!({ "type": "image", "mediaType": media, "data": data });
    let cases = [
        (vec![image("image/png", "not base64!")], "INVALID_IMAGE_BASE64", "Image upload is not canonical base64."),
        (vec![image("image/jpeg", PNG_1X1)], "IMAGE_TYPE_MISMATCH", "Declared image type does not match its bytes."),
        (vec![image("image/png", "AAAA")], "INVALID_IMAGE", "Unsupported or malformed image data."),
        (
            vec![image("image/png", PNG_1X1); 21],
            "TOO_MANY_IMAGES",
            "Image batch exceeds the configured image-count limit.",
        ),
    ];
    for wire in [&["--wire", "2026-08"][..], &[]] {
        let host = Host::start(wire);
        let sid = host.create();
        for (content, reason, message) in &cases {
            let err = host.call_err("session.prompt", json!({ "sessionId": sid, "mode": "queue", "content": content }));
            match wire.is_empty() {
                false => assert_eq!(
                    err,
                    json!({ "code": "attachment-error", "message": message, "details": { "reason": reason } }),
                    "{reason}"
                ),
                true => assert_eq!(err["code"], "bad-request", "{reason}: {err}"),
            }
        }
        let err = host.call_err("session.attachment", json!({ "sessionId": sid, "attachmentId": "sha256:00" }));
        let want = if wire.is_empty() { "bad-request" } else { "attachment-error" };
        assert_eq!(
            (err["code"].as_str(), err["message"].as_str()),
            (Some(want), Some("Image is not referenced by this session."))
        );
        // A media type outside the four fails upstream's schema first: an invalid payload.
        let bmp = json!([image("image/bmp", PNG_1X1)]);
        let err = host.call_err("session.prompt", json!({ "sessionId": sid, "mode": "queue", "content": bmp }));
        assert_eq!(
            (err["code"].as_str(), err["message"].as_str()),
            (Some("bad-request"), Some("invalid payload for session.prompt"))
        );
        assert_eq!(err["details"]["issues"][0]["path"], json!(["content", 0, "mediaType"]));
        assert!(host.event_types(&sid).is_empty(), "nothing refused reached the log");
    }
}

#[test]
fn a_prompt_keeps_the_browsers_time_zone_on_its_user_message_and_a_malformed_one_is_refused() {
    let host = upstream();
    let sid = host.create();
    let prompt = |zone: &str| json!({ "sessionId": sid, "mode": "queue", "content": [{ "type": "text", "text": "hi" }], "clientTimeZone": zone });
    for bad in ["Mars Base", "Europe/", "/Berlin", " UTC", "Berlin", ""] {
        let err = host.call_err("session.prompt", prompt(bad));
        assert_eq!(
            err,
            json!({ "code": "invalid-time-zone", "message": "clientTimeZone must be UTC or a valid IANA Area/Location name", "details": { "value": bad } }),
            "{bad:?}"
        );
    }
    assert_eq!(host.call("session.prompt", prompt("America/Argentina/Buenos_Aires")), json!({ "accepted": true }));
    let events = host.wait_turn_end(&sid, 1);
    let user = events.iter().find(|e| e["type"] == "user/message").expect("user/message");
    let source = &user["data"]["source"];
    assert_eq!(
        (&source["kind"], &source["clientTimeZone"]),
        (&json!("user"), &json!("America/Argentina/Buenos_Aires"))
    );
    assert!(source["rpcId"].as_str().is_some_and(|r| r.starts_with("t-")), "{source}");
    assert_eq!(host.call("session.prompt", prompt("UTC")), json!({ "accepted": true }));
    let events = host.wait_turn_end(&sid, 2);
    let user = events.iter().rev().find(|e| e["type"] == "user/message").expect("user/message");
    assert_eq!(user["data"]["source"]["clientTimeZone"], "UTC");
}

#[test]
fn a_queue_edit_takes_text_only_and_a_steer_needs_a_running_turn() {
    for upstream in [true, false] {
        let mut args = vec!["--chunk-delay-ms", "30"];
        if upstream {
            args.extend(["--wire", "2026-08"]);
        }
        let host = Host::start(&args);
        let sid = host.create();
        let item = one_queued(&host, &sid, "queued");
        let edit =
            json!({ "kind": "edit", "content": [{ "type": "image", "mediaType": "image/png", "data": PNG_1X1 }] });
        let err = host.call_err("session.updateQueue", json!({ "sessionId": sid, "itemId": item, "action": edit }));
        match upstream {
            true => assert_eq!(
                err,
                json!({ "code": "attachment-error", "message": "queue edits accept text content only", "details": { "reason": "QUEUE_EDIT_NON_TEXT" } })
            ),
            false => assert_eq!(err["code"], "bad-request", "{err}"),
        }
        if !upstream {
            continue;
        }
        // After a cancel the 2026-08 host holds the queue with no running turn: nothing to steer.
        host.call("session.cancel", json!({ "sessionId": sid }));
        host.wait_turn_end(&sid, 1);
        let err = host.call_err(
            "session.updateQueue",
            json!({ "sessionId": sid, "itemId": item, "action": { "kind": "steer" } }),
        );
        assert_eq!(
            err,
            json!({ "code": "steer-unavailable", "message": "current turn no longer accepts steering", "details": { "itemId": item } })
        );
    }
}

#[test]
fn the_queue_is_published_and_edited_removed_or_steered() {
    let host = Host::start(&["--wire", "2026-08", "--chunk-delay-ms", "30"]);
    let sid = host.create();
    let mut mux = host.mux();
    host.prompt(&sid, "queue", "first, a reply long enough to stream for a while");
    host.prompt(&sid, "queue", "second");
    host.prompt(&sid, "queue", "third");
    let queue = |frames: &[agent_session_wire::InboundFrame]| -> Value {
        frames
            .iter()
            .rev()
            .find_map(|f| match &f.frame {
                Frame::Queue(q) => Some(q.items.value()),
                _ => None,
            })
            .unwrap()
    };
    let frames = mux.until(
        "two queued",
        |f| matches!(f, Frame::Queue(q) if q.items.value().as_array().is_some_and(|a| a.len() == 2)),
    );
    let items = queue(&frames);
    assert_eq!(items[0]["placement"], "queued");
    assert_eq!(items[0]["message"]["content"][0]["text"], "second");
    let (second, third) = (items[0]["id"].as_str().unwrap().to_string(), items[1]["id"].as_str().unwrap().to_string());
    let edit = json!({ "kind": "edit", "content": [{ "type": "text", "text": "second, edited" }] });
    assert_eq!(
        host.call("session.updateQueue", json!({ "sessionId": sid, "itemId": second, "action": edit })),
        json!({ "accepted": true })
    );
    let frames = mux.until("the edit", |f| matches!(f, Frame::Queue(q) if q.items.text().contains("second, edited")));
    assert_eq!(queue(&frames).as_array().unwrap().len(), 2);
    host.call("session.updateQueue", json!({ "sessionId": sid, "itemId": third, "action": { "kind": "remove" } }));
    mux.until(
        "the removal",
        |f| matches!(f, Frame::Queue(q) if q.items.value().as_array().is_some_and(|a| a.len() == 1)),
    );
    let err = host
        .call_err("session.updateQueue", json!({ "sessionId": sid, "itemId": third, "action": { "kind": "remove" } }));
    assert_eq!(err["code"], "queue-item-not-found", "gone: {err}");
    // Steer: the queued prompt ends the running turn and goes next.
    host.call("session.updateQueue", json!({ "sessionId": sid, "itemId": second, "action": { "kind": "steer" } }));
    let events = host.wait_turn_end(&sid, 2);
    let end = events.iter().find(|e| e["type"] == "turn/end" && e["data"]["turn"] == 1).unwrap();
    assert_eq!(end["data"]["reason"]["kind"], "interrupted");
    let texts: Vec<Value> = events
        .iter()
        .filter(|e| e["type"] == "user/message")
        .map(|e| e["data"]["content"][0]["text"].clone())
        .collect();
    assert_eq!(texts.last().unwrap(), "second, edited");
}

#[test]
fn after_cancel_a_queued_prompt_waits_for_the_next_prompt() {
    let host = Host::start(&["--wire", "2026-08", "--chunk-delay-ms", "30"]);
    let sid = host.create();
    host.prompt(&sid, "queue", "first, a reply long enough to stream for a while");
    host.prompt(&sid, "queue", "queued");
    host.call("session.cancel", json!({ "sessionId": sid }));
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert_eq!(host.event_types(&sid).iter().filter(|t| *t == "turn/start").count(), 1, "nothing ran after the cancel");
    host.prompt(&sid, "queue", "next");
    let events = host.wait_turn_end(&sid, 3);
    let texts: Vec<Value> = events
        .iter()
        .filter(|e| e["type"] == "user/message")
        .map(|e| e["data"]["content"][0]["text"].clone())
        .collect();
    assert_eq!(texts[1..], [json!("queued"), json!("next")], "FIFO: the held prompt first");
}

#[test]
fn fork_copies_the_log_to_a_completed_turn_and_ends_the_seed() {
    let host = upstream();
    let sid = host.create();
    host.prompt(&sid, "queue", "one");
    host.wait_turn_end(&sid, 1);
    host.prompt(&sid, "queue", "two");
    let parent = host.wait_turn_end(&sid, 2);
    let first_end = parent.iter().find(|e| e["type"] == "turn/end").unwrap()["seq"].as_u64().unwrap();
    let mut hosts = host.host_stream();
    let child = host.call("session.fork", json!({ "sessionId": sid, "atSeq": first_end - 1 }))["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    let added = hosts.until("session-added", |f| matches!(f, Frame::SessionAdded(a) if a.session_id == child));
    let Frame::SessionAdded(a) = &added.last().unwrap().frame else { unreachable!() };
    assert_eq!(a.parent_session_id.as_deref(), Some(sid.as_str()));
    let events = host.all_events(&child);
    let kinds = types(&events);
    assert_eq!(kinds.last(), Some(&"session/end-seed"));
    assert_eq!(kinds.iter().filter(|k| **k == "turn/start").count(), 1, "only the first turn: {kinds:?}");
    let seqs: Vec<u64> = events.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert_eq!(seqs, (0..seqs.len() as u64).collect::<Vec<_>>());
    let list = host.call("session.list", json!({}));
    let item = list["items"].as_array().unwrap().iter().find(|i| i["sessionId"] == child.as_str()).unwrap().clone();
    assert_eq!(item["parentSessionId"], sid.as_str());
    // The child runs turns of its own.
    host.prompt(&child, "queue", "three");
    host.wait_turn_end(&child, 2);
    // Nothing to fork from: an error, not a session.
    let fresh = host.create();
    assert_eq!(host.call_err("session.fork", json!({ "sessionId": fresh }))["code"], "fork-unavailable");
}

#[test]
fn a_title_that_normalizes_to_empty_is_title_invalid_upstream_and_bad_request_in_the_seed_dialect() {
    for (wire, code, message, details) in [
        (
            &["--wire", "2026-08"][..],
            "title-invalid",
            "session title must contain visible characters",
            Some("sessionId"),
        ),
        (&[][..], "bad-request", "session title is empty after normalization", None),
    ] {
        let host = Host::start(wire);
        let sid = host.create();
        let before = host.all_events(&sid).len();
        let err = host.call_err("session.rename", json!({ "sessionId": sid, "title": " \u{1b}\u{200B} \t " }));
        assert_eq!((err["code"].as_str(), err["message"].as_str()), (Some(code), Some(message)), "{wire:?}: {err}");
        match details {
            Some(_) => assert_eq!(err["details"], json!({ "sessionId": sid }), "{err}"),
            None => assert_eq!(err["details"], json!({ "issues": [] }), "the seed's answer as before: {err}"),
        }
        assert_eq!(host.all_events(&sid).len(), before, "no title logged");
        // An unknown session is session-not-found in both dialects.
        let err = host.call_err("session.rename", json!({ "sessionId": "session-missing", "title": "x" }));
        assert_eq!(err["code"], "session-not-found");
    }
}

#[test]
fn a_fork_with_no_completed_turn_is_fork_unavailable_upstream_and_bad_request_in_the_seed_dialect() {
    for upstream in [true, false] {
        let args: &[&str] = match upstream {
            true => &["--wire", "2026-08", "--chunk-delay-ms", "200"],
            false => &["--chunk-delay-ms", "200"],
        };
        let host = Host::start(args);
        let fresh = host.create();
        let err = host.call_err("session.fork", json!({ "sessionId": fresh }));
        let none = match upstream {
            true => format!("session \"{fresh}\" has no completed turn to fork from"),
            false => format!("session {fresh:?} has no completed turn to fork from"),
        };
        assert_eq!(err["message"], none.as_str(), "{err}");
        match upstream {
            true => assert_eq!(
                (&err["code"], &err["details"]),
                (&json!("fork-unavailable"), &json!({ "sessionId": fresh }))
            ),
            false => assert_eq!((&err["code"], &err["details"]), (&json!("bad-request"), &json!({ "issues": [] }))),
        }
        // An anchor in the log whose turn is still open: refused, not cut back to nothing.
        host.prompt(&fresh, "queue", "a reply long enough to stream for a good while, word after word after word");
        let events = host.wait_event(&fresh, "the user message", |e| e["type"] == "user/message");
        let at = events.iter().find(|e| e["type"] == "user/message").unwrap()["seq"].as_u64().unwrap();
        let err = host.call_err("session.fork", json!({ "sessionId": fresh, "atSeq": at }));
        assert!(!host.event_types(&fresh).contains(&"turn/end".to_string()), "the turn was still open");
        match upstream {
            true => {
                let open = format!("session \"{fresh}\" has not completed the turn containing event {at}");
                assert_eq!((&err["code"], &err["message"]), (&json!("fork-unavailable"), &json!(open)), "{err}");
                assert_eq!(err["details"], json!({ "sessionId": fresh }));
            }
            false => assert_eq!((&err["code"], &err["message"]), (&json!("bad-request"), &json!(none)), "{err}"),
        }
        host.call("session.cancel", json!({ "sessionId": fresh }));
        assert_eq!(host.call("session.list", json!({}))["items"].as_array().unwrap().len(), 1, "no child was created");
    }
}

#[test]
fn an_item_no_longer_queued_is_queue_item_not_found_upstream_and_bad_request_in_the_seed_dialect() {
    for upstream in [true, false] {
        let args: &[&str] = match upstream {
            true => &["--wire", "2026-08", "--chunk-delay-ms", "30"],
            false => &["--chunk-delay-ms", "30"],
        };
        let host = Host::start(args);
        let sid = host.create();
        let item = one_queued(&host, &sid, "second");
        // The agent takes it: the second turn runs it.
        host.wait_turn_end(&sid, 2);
        let edit = json!({ "kind": "edit", "content": [{ "type": "text", "text": "too late" }] });
        let mut refusals = vec![];
        for item_id in [item.as_str(), "m-never-queued"] {
            let err =
                host.call_err("session.updateQueue", json!({ "sessionId": sid, "itemId": item_id, "action": edit }));
            refusals.push((item_id.to_string(), err));
        }
        for (item_id, err) in &refusals {
            match upstream {
                true => assert_eq!(
                    err,
                    &json!({ "code": "queue-item-not-found", "message": "queued item is no longer pending", "details": { "itemId": item_id } })
                ),
                false => assert_eq!(
                    err,
                    &json!({ "code": "bad-request", "message": format!("queue item {item_id:?} not found"), "details": { "issues": [] } })
                ),
            }
        }
        // A session this host does not hold has no pending item upstream; the seed: not found.
        let err = host.call_err(
            "session.updateQueue",
            json!({ "sessionId": "session-missing", "itemId": item, "action": { "kind": "remove" } }),
        );
        let code = if upstream { "queue-item-not-found" } else { "session-not-found" };
        assert_eq!(err["code"], code, "{err}");
    }
}
