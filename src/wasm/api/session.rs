//! The `Session` JS class.

use crate::core::client::{Input, SessionOp};
use crate::core::session::Call;
use crate::core::wire::{self, Json, PromptMode, RpcResult};
use crate::wasm::driver::{close_shared, feed_weak, live, make_unsubscribe, operate, run, SessionJs, Shared};
use crate::wasm::export::Paint;
use crate::wasm::js;
use js_sys::Promise;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// One conversation of the host (see `types/index.d.ts`). Obtained with `host.session(id)`.
#[wasm_bindgen(js_name = Session)]
pub struct JsSession {
    pub(crate) shared: Shared,
    pub(crate) id: String,
}

fn parse_result_arg(v: &JsValue) -> Result<RpcResult<Json>, JsValue> {
    let json = js::js_json(v).ok_or_else(|| js::bad_argument("result must be an RpcResult object"))?;
    wire::result_from_text(json.text()).map_err(|e| js::bad_argument(&format!("result must be an RpcResult: {e}")))
}

/// What the binding checks of prompt content: an array of objects, each with a string `type`.
fn is_block_list(j: &Json) -> bool {
    use crate::core::wire::read::{items, Obj};
    items(j.text())
        .is_ok_and(|blocks| blocks.iter().all(|b| Obj::parse(b.get()).is_ok_and(|o| o.str_ref("type").is_ok())))
}

impl Drop for JsSession {
    /// The last `Session` object of a client whose `HostClient` object is gone closes it.
    fn drop(&mut self) {
        if Rc::strong_count(&self.shared) == 1 && self.shared.try_borrow().is_ok_and(|g| g.host_gone) {
            close_shared(&self.shared);
        }
    }
}

#[wasm_bindgen(js_class = Session)]
impl JsSession {
    #[wasm_bindgen(getter, js_name = sessionId)]
    pub fn session_id(&self) -> String {
        self.id.clone()
    }

    fn live(&self) -> Result<(), JsValue> {
        live(&self.shared)
    }

    /// Runs a session operation; its promise settles when the core says so.
    fn op(&self, op: SessionOp) -> Result<Promise, JsValue> {
        self.live()?;
        let session = self.id.clone();
        Ok(operate(&self.shared, |handle| Input::Session { handle, session, op }))
    }

    pub fn open(&self) -> Result<Promise, JsValue> {
        self.op(SessionOp::Open)
    }

    pub fn resync(&self) -> Result<(), JsValue> {
        self.live()?;
        // Through `feed_weak`'s copy of `run` (one fewer generic instance).
        feed_weak(&Rc::downgrade(&self.shared), Input::Resync { session: self.id.clone() });
        Ok(())
    }

    #[wasm_bindgen(js_name = loadOlder)]
    pub fn load_older(&self) -> Result<Promise, JsValue> {
        self.op(SessionOp::LoadOlder)
    }

    /// `adopted` is the local cache's (docs/API.md "Local cache"): the id an earlier page made
    /// the prompt under, taken over with the outbox it kept through a reload.
    pub fn prompt(&self, content: JsValue, mode: JsValue, adopted: JsValue) -> Result<Promise, JsValue> {
        // A non-array fails the list check too (one check, one message).
        let content = match js::js_json(&content) {
            Some(j) if is_block_list(&j) => j,
            _ => return Err(js::bad_argument("content must be an array of content-block objects with a type")),
        };
        let mode = match mode.as_string().as_deref() {
            _ if mode.is_undefined() => PromptMode::Queue,
            Some("queue") => PromptMode::Queue,
            Some("steer") => PromptMode::Steer,
            _ => return Err(js::bad_argument("mode must be 'queue' or 'steer'")),
        };
        self.op(SessionOp::Prompt { content, mode, adopted: adopted.as_string().filter(|id| !id.is_empty()) })
    }

    /// Sends a `failed` prompt of the outbox again, under the same id.
    pub fn retry(&self, client_id: JsValue) -> Result<Promise, JsValue> {
        let id = client_id.as_string().ok_or_else(|| js::bad_argument("id must be a string"))?;
        self.op(SessionOp::FailedPrompt { id, retry: true })
    }

    /// Drops a `failed` prompt of the outbox (its echo goes).
    pub fn discard(&self, client_id: JsValue) -> Result<Promise, JsValue> {
        let id = client_id.as_string().ok_or_else(|| js::bad_argument("id must be a string"))?;
        self.op(SessionOp::FailedPrompt { id, retry: false })
    }

    pub fn cancel(&self) -> Result<Promise, JsValue> {
        self.op(SessionOp::Cancel)
    }

    #[wasm_bindgen(js_name = setPlanMode)]
    pub fn set_plan_mode(&self, active: JsValue) -> Result<Promise, JsValue> {
        let active = active.as_bool().ok_or_else(|| js::bad_argument("active must be a boolean"))?;
        self.op(SessionOp::SetPlanMode(active))
    }

    pub fn respond(&self, key: JsValue, result: JsValue) -> Result<Promise, JsValue> {
        let key = key.as_string().ok_or_else(|| js::bad_argument("key must be a string"))?;
        let result = parse_result_arg(&result)?;
        self.op(SessionOp::Respond { key, result })
    }

    /// Extension 2: submits answers to a pending structured user-input prompt. Resolves to
    /// `RpcResult<RpcReceipt>`.
    pub fn answer(&self, prompt_id: JsValue, answers: JsValue) -> Result<Promise, JsValue> {
        let prompt_id = prompt_id.as_string().ok_or_else(|| js::bad_argument("promptId must be a string"))?;
        if !js_sys::Array::is_array(&answers) {
            return Err(js::bad_argument("answers must be an array"));
        }
        let answers = js::js_json(&answers)
            .and_then(|v| crate::core::wire::interaction::Answer::read_list(v.text()).ok())
            .ok_or_else(|| js::bad_argument("answers must be [{questionId, …}]"))?;
        self.op(SessionOp::Answer { prompt_id, answers })
    }

    /// The 2026-08 host: runs a slash-command line (`commands/execute`).
    pub fn command(&self, line: JsValue) -> Result<Promise, JsValue> {
        let line = line.as_string().ok_or_else(|| js::bad_argument("line must be a string"))?;
        self.op(SessionOp::Verb(Call::RunCommand { line }))
    }

    /// The 2026-08 host: `session.rename`.
    pub fn rename(&self, title: JsValue) -> Result<Promise, JsValue> {
        let title = title.as_string().ok_or_else(|| js::bad_argument("title must be a string"))?;
        self.op(SessionOp::Verb(Call::Rename { title }))
    }

    /// The 2026-08 host: edits, removes or steers one queued prompt.
    #[wasm_bindgen(js_name = updateQueue)]
    pub fn update_queue(&self, item_id: JsValue, action: JsValue) -> Result<Promise, JsValue> {
        let item_id = item_id.as_string().ok_or_else(|| js::bad_argument("itemId must be a string"))?;
        // The shape the host reads; the content's blocks are the host's to check.
        let ok = match js::get(&action, "kind").as_string().as_deref() {
            Some("remove" | "steer") => true,
            Some("edit") => js_sys::Array::is_array(&js::get(&action, "content")),
            _ => false,
        };
        let action = js::js_json(&action).filter(|_| ok).ok_or_else(|| {
            js::bad_argument("action must be {kind:'edit', content} or {kind:'remove' | 'steer'}")
        })?;
        self.op(SessionOp::Verb(Call::UpdateQueue { item_id, action }))
    }

    /// The 2026-08 host: one image attachment (`session.attachment`).
    #[wasm_bindgen(js_name = readAttachment)]
    pub fn read_attachment(&self, attachment_id: JsValue) -> Result<Promise, JsValue> {
        let attachment_id = attachment_id
            .as_string()
            .filter(|s| !s.is_empty())
            .ok_or_else(|| js::bad_argument("attachmentId must be a non-empty string"))?;
        self.op(SessionOp::Verb(Call::Attachment { attachment_id }))
    }

    /// A pure read: `host.session(id)` made the session resident, and the core never drops a
    /// resident one, so reading it feeds no input and performs nothing.
    #[wasm_bindgen(js_name = getSnapshot)]
    pub fn get_snapshot(&self) -> JsValue {
        self.shared.borrow_mut().session_snapshot(&self.id)
    }

    /// The local cache's hook (`cache.js`, docs/API.md "Local cache"). With a painter of a
    /// kept window (`own => painted`) while the session loads: its snapshot is painted until
    /// the host's window is in (`export::Paint`), and its listeners are called. With an array
    /// of nodes (as many as the last snapshot's, each equal to the one it replaces): they
    /// become the exported nodes, so nodes painted from the cache keep their identity once
    /// the host confirmed them.
    #[wasm_bindgen(js_name = __cache)]
    pub fn cache_hook(&self, kept: JsValue) {
        let mut g = self.shared.borrow_mut();
        let js = g.per_session.get_or_insert_with(self.id.as_str(), SessionJs::default);
        let Some(paint) = js::is_function(&kept) else {
            js.export.adopt_nodes(kept);
            return;
        };
        js.paint = Some(Paint::new(paint));
        if !g.notify_sessions.contains(&self.id) {
            g.notify_sessions.push(self.id.clone());
        }
        // Nothing but the listeners' microtask to queue: no JS is called here.
        g.pump();
    }

    /// A session with listeners is watched: it stays resident and is resynced by reconnects.
    pub fn subscribe(&self, listener: JsValue) -> Result<JsValue, JsValue> {
        let f = js::is_function(&listener).ok_or_else(|| js::bad_argument("listener must be a function"))?;
        let id = run(&self.shared, |g| {
            let id = g.next_id();
            if !g.core.is_closed() {
                let items = &mut g.per_session.get_or_insert_with(self.id.as_str(), SessionJs::default).listeners.items;
                items.push((id, f));
                if items.len() == 1 {
                    g.handle(Input::Watch { session: self.id.clone(), listeners: true });
                }
            }
            id
        });
        Ok(make_unsubscribe(Rc::downgrade(&self.shared), Some(self.id.clone()), id))
    }

    /// Does nothing (docs/API.md "Lifetimes"): a `Session` is shared by everyone who asked
    /// its host for it, so none of them frees it; it is collected with its last reference.
    /// Declared here, it replaces the `free` wasm-bindgen writes (the class body's later
    /// method wins), and wasm-bindgen's `Symbol.dispose` is this one too.
    #[wasm_bindgen(js_name = free)]
    pub fn keep(&self) {}

    /// The core's drop counters for this session (diagnostics and tests).
    pub fn diagnostics(&self) -> JsValue {
        let g = self.shared.borrow();
        let Some(s) = g.core.session(&self.id) else {
            return JsValue::NULL;
        };
        let d = s.diagnostics();
        js::frozen(&[
            ("staleResponses", JsValue::from_f64(d.stale_responses as f64)),
            ("duplicateEvents", JsValue::from_f64(d.duplicate_events as f64)),
            ("rejectedPages", JsValue::from_f64(d.rejected_pages as f64)),
            ("repairs", JsValue::from_f64(d.repairs as f64)),
            ("bufferOverflows", JsValue::from_f64(d.buffer_overflows as f64)),
            ("unreachedTails", JsValue::from_f64(d.unreached_tails as f64)),
            ("pendingDropped", JsValue::from_f64(d.pending_dropped as f64)),
            ("planResponsesFenced", JsValue::from_f64(d.plan_responses_fenced as f64)),
            ("releases", JsValue::from_f64(d.releases as f64)),
            ("inFlight", JsValue::from_f64(s.in_flight() as f64)),
            ("promptsWaiting", JsValue::from_f64(s.outbox().waiting() as f64)),
            ("promptsResent", JsValue::from_f64(s.outbox().resent as f64)),
            ("promptsDeduplicated", JsValue::from_f64(s.outbox().deduplicated as f64)),
            ("openGeneration", JsValue::from_f64(s.generation().0 as f64)),
        ])
    }
}
