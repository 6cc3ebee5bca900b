//! The 2026-08 session verbs through the package: commands, rename, image prompts, the host's queue,
//! fork.

use crate::support::*;

/// A 1x1 PNG (70 bytes).
const PNG_1X1: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/// The 2026-08 session verbs through the JS API against the reference host's 2026-08
/// dialect: the live command list, a command with arguments, rename, an image prompt read
/// back, a queued prompt edited and removed, a fork; the seed host refuses what it lacks.
#[wasm_bindgen_test]
async fn the_2026_08_session_verbs_work_through_the_package() {
    let host = client_of(UPSTREAM_HOST, "auto", "");
    until("connection open", 10_000.0, || conn_state(&host) == "open").await;
    let id = create(&host).await;
    let s = call(&host, "session", &[id.clone().into()]);
    wait(call(&s, "open", &[])).await;
    until("the command list", 10_000.0, || !get(&snap(&s), "commands").is_null()).await;
    let names: Vec<String> =
        Array::from(&get(&snap(&s), "commands")).iter().filter_map(|c| get(&c, "name").as_string()).collect();
    assert!(names.contains(&"plan".into()) && names.contains(&"feedback".into()), "{names:?}");
    // A command with arguments; a line no command takes.
    let r = wait(call(&s, "command", &["/feedback works well".into()])).await;
    assert_eq!(path(&r, &["value", "result", "kind"]).as_string().as_deref(), Some("success"), "{}", json(&r));
    let r = wait(call(&s, "command", &["/nosuchcommand".into()])).await;
    assert_eq!(json(&r), r#"{"ok":true,"value":null}"#);
    // Rename: normalized by the host, shown in the snapshot and the live list.
    let r = wait(call(&s, "rename", &["  Verbs   session ".into()])).await;
    assert_eq!(path(&r, &["value", "title"]).as_string().as_deref(), Some("Verbs session"), "{}", json(&r));
    until("the title", 5_000.0, || get(&snap(&s), "title").as_string().as_deref() == Some("Verbs session")).await;
    until("the list title", 5_000.0, || {
        list_item(&host, &id).is_some_and(|i| get(&i, "title").as_string().as_deref() == Some("Verbs session"))
    })
    .await;
    // An image prompt: history keeps a reference the package reads back.
    let content = obj(&format!(
        r#"[{{"type":"text","text":"what is this?"}},{{"type":"image","mediaType":"image/png","data":"{PNG_1X1}","name":"dot.png"}}]"#
    ));
    let r = wait(call(&s, "prompt", &[content])).await;
    assert_eq!(get(&r, "ok"), JsValue::TRUE, "{}", json(&r));
    let image_ref = || {
        nodes(&s).iter().find_map(|n| {
            let part = Array::from(&get(&n, "content")).get(1);
            (get(&n, "type").as_string().as_deref() == Some("user"))
                .then(|| get(&part, "attachment"))
                .filter(|a| a.is_object())
        })
    };
    until("the image's user node", 10_000.0, || image_ref().is_some()).await;
    let attachment_id = get(&image_ref().unwrap(), "attachmentId");
    assert!(attachment_id.as_string().is_some_and(|a| a.starts_with("sha256:")));
    until("the reply echoes the image size", 10_000.0, || {
        nodes(&s).iter().any(|n| json(&get(&n, "content")).contains("1x1 image/png image of 70 bytes"))
    })
    .await;
    let r = wait(call(&s, "readAttachment", &[attachment_id])).await;
    assert_eq!(path(&r, &["value", "data"]).as_string().as_deref(), Some(PNG_1X1), "{}", json(&r));
    until("idle", 10_000.0, || !get(&snap(&s), "running").is_truthy()).await;
    // A queued prompt behind a turn that waits on a question: edited, then removed.
    wait(call(&s, "prompt", &[text_block("hold on [question]")])).await;
    until("question pending", 10_000.0, || Array::from(&get(&snap(&s), "pending")).length() == 1).await;
    wait(call(&s, "prompt", &[text_block("queued one")])).await;
    let queue_len = || get(&snap(&s), "queue").dyn_into::<Array>().map_or(0, |q| q.length());
    until("queued", 5_000.0, || queue_len() == 1).await;
    let item = Array::from(&get(&snap(&s), "queue")).get(0);
    let item_id = get(&item, "id");
    let edit = obj(r#"{"kind":"edit","content":[{"type":"text","text":"queued, edited"}]}"#);
    let r = wait(call(&s, "updateQueue", &[item_id.clone(), edit])).await;
    assert_eq!(json(&r), r#"{"ok":true,"value":{"accepted":true}}"#);
    until("edited", 5_000.0, || json(&get(&snap(&s), "queue")).contains("queued, edited")).await;
    let r = wait(call(&s, "updateQueue", &[item_id, obj(r#"{"kind":"remove"}"#)])).await;
    assert_eq!(get(&r, "ok"), JsValue::TRUE, "{}", json(&r));
    until("removed", 5_000.0, || queue_len() == 0).await;
    let key = get(&Array::from(&get(&snap(&s), "pending")).get(0), "key");
    wait(call(&s, "respond", &[key, obj(r#"{"ok":true,"value":{"answers":{"q1":"yes"}}}"#)])).await;
    until("idle again", 20_000.0, || !get(&snap(&s), "running").is_truthy()).await;
    // A fork at the first completed turn: a child in the live list, its log ending the seed.
    // (Through the wasm's `call`, as index.js's `fork` sends it.)
    let fork = |id: &str| [JsValue::from_str("session.fork"), JsValue::from_str(&format!(r#"{{"sessionId":"{id}"}}"#))];
    let r = wait(call(&host, "call", &fork(&id))).await;
    let child = path(&r, &["value", "sessionId"]).as_string().unwrap_or_else(|| panic!("{}", json(&r)));
    until("the child is listed with its parent", 5_000.0, || {
        list_item(&host, &child).is_some_and(|i| get(&i, "parentSessionId").as_string().as_deref() == Some(id.as_str()))
    })
    .await;
    let c = call(&host, "session", &[child.into()]);
    wait(call(&c, "open", &[])).await;
    until("the child's history", 5_000.0, || node_types(&c) == node_types(&s)).await;
    call(&host, "close", &[]);
    // The seed host has no commands: a clear refusal, no hang, no throw.
    let seed = new_host();
    connected(&seed).await;
    let sid = create(&seed).await;
    let ss = call(&seed, "session", &[sid.clone().into()]);
    wait(call(&ss, "open", &[])).await;
    let r = wait(call(&ss, "command", &["/plan".into()])).await;
    assert_eq!(path(&r, &["error", "code"]).as_string().as_deref(), Some("unsupported"), "{}", json(&r));
    assert!(get(&snap(&ss), "commands").is_null());
    // A method the host does not have (404): `unsupported`. A call whose signal aborts settles
    // `cancelled`, and one given an aborted signal is never sent.
    let r = wait(call(&seed, "call", &["goal.list".into(), "{}".into()])).await;
    assert_eq!(path(&r, &["error", "code"]).as_string().as_deref(), Some("unsupported"), "{}", json(&r));
    let ctrl = |abort: bool| {
        let c =
            js_sys::Function::new_no_args("return new AbortController()").call0(&JsValue::NULL).expect("a controller");
        if abort {
            call(&c, "abort", &[]);
        }
        c
    };
    let inflight = || get(&call(&seed, "diagnostics", &[]), "inflightRequests").as_f64();
    let before = inflight();
    let c = ctrl(true);
    let r = wait(call(&seed, "call", &["session.list".into(), "{}".into(), get(&c, "signal")])).await;
    assert_eq!(path(&r, &["error", "code"]).as_string().as_deref(), Some("cancelled"), "{}", json(&r));
    assert_eq!(inflight(), before, "an aborted call leaves no request");
    let c = ctrl(false);
    let p = call(&seed, "call", &["session.list".into(), "{}".into(), get(&c, "signal")]);
    call(&c, "abort", &[]);
    let r = wait(p).await;
    assert_eq!(path(&r, &["error", "code"]).as_string().as_deref(), Some("cancelled"), "{}", json(&r));
    // And a call answered: the host's result object as written.
    let r = wait(call(&seed, "call", &["session.list".into(), "{}".into()])).await;
    assert!(json(&r).contains(&format!(r#""sessionId":"{sid}""#)), "{}", json(&r));
    call(&seed, "close", &[]);
    assert_page_clean().await;
}
