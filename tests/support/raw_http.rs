//! One raw HTTP/1.1 exchange on a connection of its own, for tests that send what a client
//! library would not (a foreign `Host`, a form body, a trickle).

use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

/// How long a server has to answer and close.
const PATIENCE: Duration = Duration::from_secs(60);

/// An HTTP response: its status, head and body.
#[derive(Debug)]
pub(crate) struct Reply {
    pub(crate) status: u16,
    #[allow(dead_code)]
    pub(crate) head: String,
    pub(crate) body: String,
}

/// Sends `request` (whole, with `Connection: close`) and reads the answer to its end.
pub(crate) async fn exchange(addr: SocketAddr, request: String) -> Reply {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    // A server may answer and close before the whole request is in (a refused body).
    let _ = stream.write_all(request.as_bytes()).await;
    let mut raw = Vec::new();
    tokio::time::timeout(PATIENCE, stream.read_to_end(&mut raw))
        .await
        .expect("the server answers and closes")
        .unwrap();
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP response: {text:?}"));
    Reply {
        status,
        head: head.to_owned(),
        body: body.to_owned(),
    }
}
