//! The SSE carrier: `: connected`, then one `data:` line per frame; no ids, no event names,
//! no heartbeats. The response ends when the source does.

use super::source::FrameSource;
use axum::response::sse::{Event, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::stream::{self, StreamExt};
use std::convert::Infallible;

pub fn response(source: FrameSource) -> Response {
    let connected = stream::once(async { Ok::<_, Infallible>(Event::default().comment("connected")) });
    let frames = stream::unfold(source, |mut source| async move {
        let frame = source.next().await?;
        Some((Ok(Event::default().data(frame.json.as_str())), source))
    });
    Sse::new(connected.chain(frames)).into_response()
}
