//! Server-sent events from a streamed response, parsed by `sse-stream`.

use std::pin::Pin;

use futures_util::{Stream, StreamExt as _};
use serde::de::DeserializeOwned;

use crate::model::ModelError;

type Inner = Pin<Box<dyn Stream<Item = Result<sse_stream::Sse, sse_stream::Error>> + Send>>;

/// The events of one streamed response, in order.
pub(crate) struct Events {
    inner: Inner,
    provider: &'static str,
}

/// One event with data: its `data:` text (every provider repeats the event's name in it).
pub(crate) struct SseEvent {
    pub(crate) data: String,
}

impl Events {
    pub(crate) fn new(response: reqwest::Response, provider: &'static str) -> Self {
        let chunks = futures_util::stream::unfold(response, |mut response| async move {
            match response.chunk().await {
                Ok(Some(chunk)) => Some((Ok(chunk), response)),
                Ok(None) => None,
                Err(error) => Some((Err(error), response)),
            }
        });
        Events {
            inner: Box::pin(sse_stream::SseStream::from_bytes_stream(chunks)),
            provider,
        }
    }

    /// The next event that carries data; `None` at the end of the stream. Comments and
    /// keep-alives are skipped.
    pub(crate) async fn next(&mut self) -> Result<Option<SseEvent>, ModelError> {
        loop {
            match self.inner.next().await {
                None => return Ok(None),
                Some(Err(error)) => {
                    return Err(ModelError::new(format!(
                        "{}: the response stream broke off: {error}",
                        self.provider
                    )));
                }
                Some(Ok(sse)) => {
                    if let Some(data) = sse.data {
                        return Ok(Some(SseEvent { data }));
                    }
                }
            }
        }
    }
}

impl SseEvent {
    /// The data as JSON of type `T`.
    pub(crate) fn json<T: DeserializeOwned>(&self, provider: &str) -> Result<T, ModelError> {
        serde_json::from_str(&self.data).map_err(|error| {
            ModelError::with_source(
                format!(
                    "{provider}: a streamed event is not the JSON expected ({})",
                    preview(&self.data)
                ),
                error,
            )
        })
    }
}

/// Parses a whole response body as `T`, with an error that shows the start of the body.
pub(crate) fn parse_body<T: DeserializeOwned>(
    provider: &str,
    body: &[u8],
) -> Result<T, ModelError> {
    serde_json::from_slice(body).map_err(|error| {
        ModelError::with_source(
            format!(
                "{provider}: the response is not the JSON expected ({})",
                preview(&String::from_utf8_lossy(body))
            ),
            error,
        )
    })
}

/// Reads a whole response body.
pub(crate) async fn read_body(
    response: reqwest::Response,
    provider: &str,
) -> Result<impl AsRef<[u8]>, ModelError> {
    response.bytes().await.map_err(|error| {
        ModelError::with_source(format!("{provider}: could not read the response"), error)
    })
}

fn preview(text: &str) -> String {
    let text: String = text.chars().take(200).collect();
    format!("starts with {text:?}")
}
