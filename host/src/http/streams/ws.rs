//! The WebSocket carrier: each text message is one frame's envelope. Downlinks are
//! server-to-client only: a client text or binary message closes the socket with 1008
//! "downlink only". When the source ends (after its `stream/error` frame, if any) the host
//! sends a close frame without a status, as upstream does.

use super::source::FrameSource;
use axum::extract::ws::{close_code, CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::response::Response;
use std::time::Duration;

/// How long a closing socket waits for the client's close reply before the TCP is dropped.
const CLOSE_GRACE: Duration = Duration::from_secs(2);

pub fn response(mut upgrade: WebSocketUpgrade, source: FrameSource) -> Response {
    // A browser fails the handshake unless one of the subprotocols it offered is echoed;
    // the frames do not depend on it, so the first one is accepted (as upstream does).
    let first = upgrade.requested_protocols().next().cloned();
    if let Some(first) = first {
        upgrade.set_selected_protocol(first);
    }
    upgrade.on_upgrade(move |socket| pump(socket, source))
}

async fn pump(mut socket: WebSocket, mut source: FrameSource) {
    let close = loop {
        tokio::select! {
            frame = source.next() => match frame {
                Some(f) => {
                    if socket.send(Message::text(f.json.as_str())).await.is_err() {
                        return;
                    }
                }
                None => break None,
            },
            msg = socket.recv() => match msg {
                Some(Ok(Message::Text(_) | Message::Binary(_))) => {
                    break Some(CloseFrame { code: close_code::POLICY, reason: "downlink only".into() });
                }
                // Pings are answered by the socket itself.
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => return,
            },
        }
    };
    if socket.send(Message::Close(close)).await.is_err() {
        return;
    }
    // Wait (bounded) for the client's close reply so the close is clean on both sides.
    let _ = tokio::time::timeout(CLOSE_GRACE, async {
        while let Some(Ok(msg)) = socket.recv().await {
            if matches!(msg, Message::Close(_)) {
                break;
            }
        }
    })
    .await;
}
