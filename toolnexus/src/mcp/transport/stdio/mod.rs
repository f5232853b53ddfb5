//! Newline-delimited JSON-RPC over a pair of byte streams, guarded: every line is bounded,
//! and a line the SDK could not parse is answered here, at once, with an error carrying
//! the request's `id` when it can be found, instead of reaching the SDK (which would leave
//! the client waiting).
//!
//! Cancel-safe: the SDK's service loop selects over [`Transport::receive`] and other
//! futures, and drops a pending `receive` whenever another branch wins. Lines are cut by a
//! [`FramedRead`], whose buffer and codec state outlive a dropped `receive`, and
//! everything `receive` does after a line is complete is synchronous (an answer to a
//! refused line is queued, not written). Writes go through one task that owns the output:
//! lines queued together are written together, whole, in order.
//!
//! The output waiting to be written is bounded ([`MAX_QUEUED_BYTES`]): a peer that keeps
//! sending requests but does not read its answers is no longer served once that much
//! waits for it. Reading stops, what was queued is dropped, and
//! [`McpServer::serve_io`](crate::mcp::McpServer::serve_io) returns an error saying so.
//! So are the requests served at a time ([`inflight`]): the answers the SDK builds before
//! they are queued are bounded too.

mod codec;
mod inflight;

use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use futures_util::StreamExt as _;
use rmcp::RoleServer;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};
use tokio_util::codec::FramedRead;
use tokio_util::sync::CancellationToken;

use codec::{Frame, LineCodec};
use inflight::InFlight;

use super::protocol;

/// The most bytes gathered into one write when several lines are queued.
const BATCH_BYTES: usize = 64 * 1024;
/// The most output that may wait for the peer to read it (one longer line is still
/// written when nothing else waits).
pub(in crate::mcp) const MAX_QUEUED_BYTES: usize = 16 * 1024 * 1024;

/// What the reading side and the writing task share: the bytes queued and not yet
/// written, and the signal that the peer is no longer served.
struct Outlet {
    queued: AtomicUsize,
    stopped: CancellationToken,
}

enum Out {
    Line(Vec<u8>),
    /// Write what was queued before, shut the output down, and say how it went.
    Close(oneshot::Sender<io::Result<()>>),
}

pub(in crate::mcp) struct GuardedIo<R> {
    read: FramedRead<R, LineCodec>,
    out: mpsc::UnboundedSender<Out>,
    outlet: Arc<Outlet>,
    max_line: usize,
    inflight: InFlight,
}

/// The error [`McpServer::serve_io`](crate::mcp::McpServer::serve_io) returns for a peer that
/// was no longer served because it did not read.
pub(in crate::mcp) fn not_reading() -> io::Error {
    io::Error::new(
        io::ErrorKind::BrokenPipe,
        format!(
            "MCP stdio: the client has not read its output (more than {} MiB waited for it); \
             it is no longer served",
            MAX_QUEUED_BYTES >> 20
        ),
    )
}

impl<R> GuardedIo<R>
where
    R: AsyncRead + Send + Unpin + 'static,
{
    /// Starts the writing task; must be called within a Tokio runtime.
    pub(in crate::mcp) fn new<W>(read: R, write: W, max_line: usize) -> Self
    where
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let (out, queue) = mpsc::unbounded_channel();
        let outlet = Arc::new(Outlet {
            queued: AtomicUsize::new(0),
            stopped: CancellationToken::new(),
        });
        tokio::spawn(write_all(write, queue, Arc::clone(&outlet)));
        GuardedIo {
            read: FramedRead::new(read, LineCodec::new(max_line)),
            out,
            outlet,
            max_line,
            inflight: InFlight::default(),
        }
    }

    /// Cancelled when the peer is no longer served because it did not read.
    pub(in crate::mcp) fn stopped(&self) -> CancellationToken {
        self.outlet.stopped.clone()
    }

    /// Queues `line` for the writer; refused, and the peer no longer served, when more
    /// than [`MAX_QUEUED_BYTES`] would wait.
    fn queue(&self, line: Vec<u8>) -> io::Result<()> {
        let len = line.len();
        let before = self.outlet.queued.fetch_add(len, Ordering::AcqRel);
        if before > 0 && before + len > MAX_QUEUED_BYTES {
            self.outlet.queued.fetch_sub(len, Ordering::AcqRel);
            if !self.outlet.stopped.is_cancelled() {
                tracing::warn!(
                    queued = before,
                    "MCP stdio: the client does not read its output; no longer serving it"
                );
                self.outlet.stopped.cancel();
            }
            return Err(not_reading());
        }
        self.out
            .send(Out::Line(line))
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "MCP stdio: output closed"))
    }
}

/// The writing task: writes every queued line, in order, several at a time when several
/// are waiting; stops at the first failed write (the queue is then closed, and every later
/// `send` fails), or when the peer is no longer served (what waits is dropped).
async fn write_all<W: AsyncWrite + Unpin>(
    mut write: W,
    mut queue: mpsc::UnboundedReceiver<Out>,
    outlet: Arc<Outlet>,
) {
    let mut batch = Vec::with_capacity(BATCH_BYTES);
    while let Some(first) = queue.recv().await {
        let mut close = None;
        let mut next = Some(first);
        while let Some(item) = next.take() {
            match item {
                Out::Line(line) => batch.extend_from_slice(&line),
                Out::Close(done) => {
                    close = Some(done);
                    break;
                }
            }
            if batch.len() < BATCH_BYTES {
                next = queue.try_recv().ok();
            }
        }
        let writing = async {
            if !batch.is_empty() {
                write.write_all(&batch).await?;
                write.flush().await?;
            }
            Ok(())
        };
        let mut written = tokio::select! {
            written = writing => written,
            () = outlet.stopped.cancelled() => return,
        };
        outlet.queued.fetch_sub(batch.len(), Ordering::AcqRel);
        batch.clear();
        if let Some(done) = close {
            if written.is_ok() {
                written = write.shutdown().await;
            }
            let _ = done.send(written);
            return;
        }
        if let Err(error) = written {
            tracing::debug!(%error, "MCP stdio: writing failed; no more output");
            return;
        }
    }
    // Every sender is gone: what was queued is written; end the output.
    let _ = write.shutdown().await;
}

fn to_line(message: &impl serde::Serialize) -> io::Result<Vec<u8>> {
    let mut line = serde_json::to_vec(message).map_err(io::Error::other)?;
    line.push(b'\n');
    Ok(line)
}

impl<R> Transport<RoleServer> for GuardedIo<R>
where
    R: AsyncRead + Send + Unpin + 'static,
{
    type Error = io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inflight.sent(&item);
        let queued = to_line(&item).and_then(|line| self.queue(line));
        std::future::ready(queued)
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            if let Some(message) = self.inflight.next_parked() {
                return Some(message);
            }
            if !self.inflight.may_read() {
                // Nothing more is read until a request in flight is answered; the SDK's
                // service loop drops this future when it sends that answer, and asks again.
                self.outlet.stopped.cancelled().await;
                return None;
            }
            // The only await: a cancelled `next` leaves a partial line in the FramedRead.
            let next = tokio::select! {
                next = self.read.next() => next,
                () = self.outlet.stopped.cancelled() => return None,
            };
            let frame = match next? {
                Ok(frame) => frame,
                Err(error) => {
                    tracing::debug!(%error, "MCP stdio: reading failed; ending the session");
                    return None;
                }
            };
            let rejection = match frame {
                Frame::TooLong { len, id } => {
                    tracing::debug!(len, "MCP stdio: a line over the bound");
                    Box::new(protocol::too_large_with_id(id, self.max_line))
                }
                Frame::Line(line) => {
                    let text = line.trim_ascii();
                    if text.is_empty() {
                        continue;
                    }
                    match protocol::parse(text) {
                        Ok(message) => match self.inflight.admit(message, text.len()) {
                            Some(message) => return Some(message),
                            None => continue,
                        },
                        Err(rejection) => rejection,
                    }
                }
            };
            tracing::debug!(error = ?rejection.error, "MCP stdio: message refused");
            if to_line(&rejection.to_json())
                .and_then(|line| self.queue(line))
                .is_err()
            {
                return None;
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        if self.outlet.stopped.is_cancelled() {
            // The writer is gone; the output is left as it is.
            return Ok(());
        }
        let (done, result) = oneshot::channel();
        if self.out.send(Out::Close(done)).is_err() {
            return Ok(());
        }
        result.await.unwrap_or(Ok(()))
    }
}
#[cfg(test)]
mod tests {
    use futures_util::FutureExt as _;
    use tokio::io::AsyncWriteExt;

    use super::*;

    const PATIENCE: std::time::Duration = std::time::Duration::from_secs(10);
    const PING: &[u8] = br#"{"jsonrpc":"2.0","id":41,"method":"ping"}"#;

    /// The SDK's service loop selects over `receive()` and other futures, and drops the
    /// pending `receive()` whenever another one wins: the part of a line already read must
    /// survive that.
    #[tokio::test]
    async fn a_cancelled_receive_keeps_the_part_of_a_line_it_read() {
        let (mut client, server) = tokio::io::duplex(1 << 16);
        let (read, write) = tokio::io::split(server);
        let mut io = GuardedIo::new(read, write, 1 << 20);
        let (head, tail) = PING.split_at(20);
        client.write_all(head).await.unwrap();
        assert!(
            Transport::<RoleServer>::receive(&mut io)
                .now_or_never()
                .is_none()
        );
        client.write_all(tail).await.unwrap();
        client.write_all(b"\n").await.unwrap();
        let message = tokio::time::timeout(PATIENCE, Transport::<RoleServer>::receive(&mut io))
            .await
            .expect("the line is received, not lost")
            .expect("a message");
        let json = serde_json::to_value(&message).unwrap();
        assert_eq!(json["id"], 41, "{json}");
    }

    /// A peer that never reads: past the bound the output is refused, reading stops, and
    /// the writer lets go of what waited.
    #[tokio::test]
    async fn a_peer_that_never_reads_is_no_longer_served() {
        let (client, server) = tokio::io::duplex(1024);
        let (read, write) = tokio::io::split(server);
        let mut io = GuardedIo::new(read, write, 1 << 20);
        let line = vec![b'x'; 1 << 20];
        let mut refused = None;
        for n in 0..64 {
            if io.queue(line.clone()).is_err() {
                refused = Some(n);
                break;
            }
        }
        let refused = refused.expect("the output is bounded");
        assert!(
            refused <= (MAX_QUEUED_BYTES >> 20) + 1,
            "{refused} lines queued"
        );
        assert!(io.stopped().is_cancelled());
        let next = tokio::time::timeout(PATIENCE, Transport::<RoleServer>::receive(&mut io));
        assert!(next.await.expect("no wait").is_none(), "reading stopped");
        let closed = tokio::time::timeout(PATIENCE, Transport::<RoleServer>::close(&mut io));
        assert!(closed.await.is_ok(), "closing does not wait for the peer");
        // The writer let go of the queue (and what waited in it).
        for _ in 0..100 {
            if io.out.is_closed() {
                drop(client);
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        panic!("the writer still holds the queue");
    }
}
