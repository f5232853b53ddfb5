//! Newline-delimited JSON-RPC over a pair of byte streams, guarded: every line is bounded,
//! and a line the SDK could not parse is answered here, at once, with an error carrying
//! the request's `id` when it can be found, instead of reaching the SDK (which would leave
//! the client waiting).

use std::io;
use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

use super::protocol;

/// How much of an over-long line is kept to look for its `id`.
const PREFIX_KEPT: usize = 4096;

pub(super) struct GuardedIo<R, W> {
    read: BufReader<R>,
    write: Arc<Mutex<W>>,
    max_line: usize,
    line: Vec<u8>,
}

impl<R, W> GuardedIo<R, W>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    pub(super) fn new(read: R, write: W, max_line: usize) -> Self {
        GuardedIo {
            read: BufReader::new(read),
            write: Arc::new(Mutex::new(write)),
            max_line,
            line: Vec::new(),
        }
    }

    /// The next line, without its line ending: `Ok(Some(Ok(line)))`, or `Ok(Some(Err(n)))`
    /// for a line of `n` bytes or more that exceeded the bound (its beginning is left in
    /// `self.line`), or `Ok(None)` at the end of the input.
    async fn next_line(&mut self) -> io::Result<Option<Result<(), usize>>> {
        self.line.clear();
        let mut seen = 0usize;
        loop {
            let buf = self.read.fill_buf().await?;
            if buf.is_empty() {
                // The end of the input; a last line without a newline still counts.
                return Ok(match seen {
                    0 => None,
                    n if n > self.max_line => Some(Err(n)),
                    _ => Some(Ok(())),
                });
            }
            let (chunk, done) = match buf.iter().position(|b| *b == b'\n') {
                Some(at) => (&buf[..at], Some(at + 1)),
                None => (buf, None),
            };
            seen += chunk.len();
            // Within the bound the whole line is kept; past it, only its beginning.
            let keep = if seen > self.max_line {
                self.line.truncate(PREFIX_KEPT);
                PREFIX_KEPT
            } else {
                self.max_line
            };
            let room = keep.saturating_sub(self.line.len()).min(chunk.len());
            self.line.extend_from_slice(&chunk[..room]);
            let consumed = done.unwrap_or(chunk.len());
            self.read.consume(consumed);
            if done.is_some() {
                return Ok(Some(if seen > self.max_line {
                    Err(seen)
                } else {
                    Ok(())
                }));
            }
        }
    }
}

async fn answer<W: AsyncWrite + Unpin>(
    write: &Mutex<W>,
    rejection: &protocol::Rejection,
) -> io::Result<()> {
    let mut line = serde_json::to_vec(&rejection.to_json()).map_err(io::Error::other)?;
    line.push(b'\n');
    write_line(write, &line).await
}

async fn write_line<W: AsyncWrite + Unpin>(write: &Mutex<W>, line: &[u8]) -> io::Result<()> {
    let mut write = write.lock().await;
    write.write_all(line).await?;
    write.flush().await
}

impl<R, W> Transport<RoleServer> for GuardedIo<R, W>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let write = Arc::clone(&self.write);
        async move {
            let mut line = serde_json::to_vec(&item).map_err(io::Error::other)?;
            line.push(b'\n');
            write_line(&write, &line).await
        }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            let rejection = match self.next_line().await {
                Err(error) => {
                    tracing::debug!(%error, "MCP stdio: reading failed; ending the session");
                    return None;
                }
                Ok(None) => return None,
                Ok(Some(Err(_))) => Box::new(protocol::too_large(&self.line, self.max_line)),
                Ok(Some(Ok(()))) => {
                    let text = self.line.trim_ascii();
                    if text.is_empty() {
                        continue;
                    }
                    match protocol::parse(text) {
                        Ok(message) => return Some(message),
                        Err(rejection) => rejection,
                    }
                }
            };
            tracing::debug!(error = ?rejection.error, "MCP stdio: message refused");
            if answer(&self.write, &rejection).await.is_err() {
                return None;
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.write.lock().await.shutdown().await
    }
}
