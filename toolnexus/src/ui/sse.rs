//! Server-sent events: a stream of JSON values as an HTTP response.

use std::convert::Infallible;

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, header};
use axum::response::Response;
use futures_util::{Stream, StreamExt as _};
use serde_json::Value;

/// `events` as a `text/event-stream` response, one `data:` line per value, then `done`
/// as a last `data:` line when given.
pub(crate) fn response(
    events: impl Stream<Item = Value> + Send + 'static,
    done: Option<&'static str>,
) -> Response {
    let end = futures_util::stream::iter(
        done.map(|done| Ok::<_, Infallible>(Bytes::from(format!("data: {done}\n\n")))),
    );
    let body = events.map(|event| {
        let mut line = Vec::with_capacity(128);
        line.extend_from_slice(b"data: ");
        // A `Value` always serializes; its JSON has no raw newline to break the frame.
        serde_json::to_writer(&mut line, &event).unwrap_or_default();
        line.extend_from_slice(b"\n\n");
        Ok::<_, Infallible>(Bytes::from(line))
    });
    let body = body.chain(end);
    let mut response = Response::new(Body::from_stream(body));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}
