//! A TCP proxy that cuts one response stream: the first request whose bytes hold a given
//! needle has its connection closed right after the first whole event with an id reaches
//! the client, as a dropped network would. Everything else is passed through.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};

/// What the proxy did: the streams it cut, and the replays (`Last-Event-ID`) it passed.
#[derive(Default)]
pub(crate) struct Cuts {
    pub(crate) cut: AtomicUsize,
    pub(crate) replays: AtomicUsize,
    done: AtomicBool,
}

/// Listens on 127.0.0.1 and forwards to `upstream`; stops with the runtime.
pub(crate) async fn start(upstream: SocketAddr, needle: &'static [u8]) -> (SocketAddr, Arc<Cuts>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let cuts = Arc::new(Cuts::default());
    let shared = Arc::clone(&cuts);
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let Ok(server) = TcpStream::connect(upstream).await else {
                continue;
            };
            tokio::spawn(relay(client, server, needle, Arc::clone(&shared)));
        }
    });
    (addr, cuts)
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle))
}

/// 0: nothing to cut; 1: a request with the needle went up; 2: its answer is watched.
async fn relay(client: TcpStream, server: TcpStream, needle: &'static [u8], cuts: Arc<Cuts>) {
    let (mut client_read, mut client_write) = client.into_split();
    let (mut server_read, mut server_write) = server.into_split();
    let armed = Arc::new(AtomicU8::new(0));
    let up = {
        let (armed, cuts) = (Arc::clone(&armed), Arc::clone(&cuts));
        async move {
            let mut buf = vec![0u8; 16 * 1024];
            loop {
                let n = match client_read.read(&mut buf).await {
                    Ok(0) | Err(_) => return,
                    Ok(n) => n,
                };
                let chunk = &buf[..n];
                if contains(chunk, b"last-event-id:") {
                    cuts.replays.fetch_add(1, Ordering::SeqCst);
                }
                if !cuts.done.load(Ordering::SeqCst) && contains(chunk, needle) {
                    armed.store(1, Ordering::SeqCst);
                }
                if server_write.write_all(chunk).await.is_err() {
                    return;
                }
            }
        }
    };
    let down = async move {
        let mut buf = vec![0u8; 16 * 1024];
        let mut watched = Vec::new();
        loop {
            let n = match server_read.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => n,
            };
            let chunk = &buf[..n];
            if armed.load(Ordering::SeqCst) == 1 {
                armed.store(2, Ordering::SeqCst);
                watched.clear();
            }
            if client_write.write_all(chunk).await.is_err() {
                return;
            }
            if armed.load(Ordering::SeqCst) == 2 {
                watched.extend_from_slice(chunk);
                let text = String::from_utf8_lossy(&watched);
                let pieces: Vec<&str> = text.split("\n\n").collect();
                let has_id = pieces[..pieces.len() - 1]
                    .iter()
                    .any(|event| event.lines().any(|line| line.starts_with("id:")));
                if has_id && !cuts.done.swap(true, Ordering::SeqCst) {
                    cuts.cut.fetch_add(1, Ordering::SeqCst);
                    return; // both halves are dropped: the connection is closed
                }
            }
        }
    };
    // The client's side ending (it sent all it will) does not end the answer.
    let up = tokio::spawn(up);
    down.await;
    up.abort();
}
