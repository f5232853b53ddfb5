//! Probes of the MCP server's HTTP side, as an attacker would send them: raw HTTP/1.1
//! against servers in child processes on 127.0.0.1 (`examples/mcp_server --http`, and
//! `tests/security/server.rs` where a probe needs small limits or a slow tool).
//!
//! - A replay (`GET` with `Last-Event-ID`) is served only to the stream's owner: a foreign
//!   id (no session at version 2026-07-28, another session at 2025-11-25) gets exactly the
//!   answer an unknown id gets, and ids next to one's own reach no other stream.
//! - A request body that trickles in is cut off by the body timeout, so slow bodies
//!   cannot hold every connection.
//! - Replays count against a session's limit, and session-less replays against theirs.
//! - Sessions that only ping expire when idle, so they cannot pin the session cap.
//! - A POST whose Content-Type is not exactly `application/json` (none, `text/plain`, a
//!   form, `application/json-x`) opens no session and runs no tool, with sessions and
//!   without, whatever the SDK underneath would do with it.
//! - The official Python (2.3, with a session and at 2026-07-28 without one) and
//!   TypeScript (1.32) SDK clients still resume their own streams: a proxy cuts a call's
//!   stream after its first event, and the SDK's replay gets the answer.

#[path = "security/cut.rs"]
mod cut;
#[path = "support/example.rs"]
mod example;
#[path = "support/node.rs"]
mod node;
#[path = "security/raw.rs"]
mod raw;

use std::net::SocketAddr;
use std::process::Command;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use example::Listening;
use raw::{
    PATIENCE, Reply, V_2026, V_NEW, as_refs, call, call_2026, exchange, exchange_for,
    first_event_id, initialize, open_session, post, read_for, replay, request, session_headers,
};
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt as _;
use tokio::net::TcpStream;

/// An event id no stream has, well-formed or not.
const UNKNOWN: &str = "ffffffffffffffffffffffffffffffff-0";

/// A server example in a child process; killed when dropped.
struct Probe {
    _server: Listening,
    addr: SocketAddr,
}

fn start(example: &str, args: &[&str]) -> Probe {
    let server = Listening::start(example, args);
    let addr = server
        .url
        .strip_prefix("http://")
        .and_then(|rest| rest.strip_suffix("/mcp"))
        .and_then(|addr| addr.parse().ok())
        .unwrap_or_else(|| panic!("not an http://ADDR/mcp URL: {}", server.url));
    Probe {
        _server: server,
        addr,
    }
}

/// A replay, read for a short while (a live one stays open).
async fn replayed(addr: SocketAddr, id: &str, session: Option<&str>, version: &str) -> Reply {
    exchange_for(
        addr,
        replay(addr, id, session, version),
        Duration::from_secs(2),
    )
    .await
}

/// What a client can tell apart between two answers.
fn visible(reply: &Reply) -> (u16, Option<String>, String, bool) {
    (
        reply.status,
        reply.header("content-type"),
        reply.body.clone(),
        reply.ended,
    )
}

#[tokio::test]
async fn a_replay_is_served_only_to_the_owner_of_the_stream() {
    let probe = start("mcp_server", &["--http", "127.0.0.1:0"]);
    let addr = probe.addr;

    // Session A's call, and a session-less 2026-07-28 call: each answered on a stream.
    let a = open_session(addr, V_NEW).await;
    let a_headers = session_headers(&a, V_NEW);
    let answered = post(
        addr,
        &call(2, "add", json!({"a": 2, "b": 3})),
        &as_refs(&a_headers),
    )
    .await;
    assert_eq!(answered.tool_text().as_deref(), Some("5"), "{answered:?}");
    let a_first = answered.event_ids().first().cloned().expect("event ids");
    let own = exchange(addr, call_2026(addr, "add", json!({"a": 20, "b": 22}))).await;
    assert_eq!(own.tool_text().as_deref(), Some("42"), "{own:?}");
    let own_first = own.event_ids().first().cloned().expect("event ids");

    let b = open_session(addr, V_NEW).await;
    let foreign = [
        ("no session, 2026-07-28, A's stream", &a_first, None, V_2026),
        (
            "session B, 2025-11-25, A's stream",
            &a_first,
            Some(b.as_str()),
            V_NEW,
        ),
        (
            "session B, 2026-07-28, A's stream",
            &a_first,
            Some(b.as_str()),
            V_2026,
        ),
        (
            "session B, 2025-11-25, a session-less stream",
            &own_first,
            Some(b.as_str()),
            V_NEW,
        ),
        (
            "session A, 2025-11-25, a session-less stream",
            &own_first,
            Some(a.as_str()),
            V_NEW,
        ),
    ];
    for (who, id, session, version) in foreign {
        let got = replayed(addr, id, session, version).await;
        let unknown = replayed(addr, UNKNOWN, session, version).await;
        assert!(
            got.messages().is_empty(),
            "{who}: a foreign replay delivered another client's events: {got:?}"
        );
        assert_eq!(
            visible(&got),
            visible(&unknown),
            "{who}: a foreign id is answered unlike an unknown one"
        );
    }

    // The owners still resume their own streams.
    let mine = replayed(addr, &a_first, Some(&a), V_NEW).await;
    assert_eq!(mine.tool_text().as_deref(), Some("5"), "{mine:?}");
    let mine = replayed(addr, &own_first, None, V_2026).await;
    assert_eq!(mine.tool_text().as_deref(), Some("42"), "{mine:?}");
}

/// Ids next to `id`: its stream part plus or minus a little, read as a decimal or a
/// hexadecimal number, at the first few indexes.
fn neighbours(id: &str) -> Vec<String> {
    let Some((stream, _)) = id.rsplit_once('-') else {
        return Vec::new();
    };
    let mut streams = Vec::new();
    if let Ok(n) = stream.parse::<u64>() {
        for d in 1..=8 {
            streams.push((n + d).to_string());
            streams.extend(n.checked_sub(d).map(|n| n.to_string()));
        }
    }
    if let Ok(n) = u128::from_str_radix(stream, 16) {
        let width = stream.len();
        for d in 1..=8u128 {
            streams.push(format!("{:0width$x}", n.wrapping_add(d)));
            streams.push(format!("{:0width$x}", n.wrapping_sub(d)));
        }
    }
    streams
        .iter()
        .flat_map(|s| (0..3).map(move |index| format!("{s}-{index}")))
        .collect()
}

#[tokio::test]
async fn guessed_event_ids_reach_no_other_stream() {
    let probe = start("mcp_server", &["--http", "127.0.0.1:0"]);
    let addr = probe.addr;

    // The attacker's own stream, then the victims': a session's call and a session-less one.
    let mine = exchange(addr, call_2026(addr, "add", json!({"a": 1, "b": 1}))).await;
    let my_id = mine.event_ids().first().cloned().expect("event ids");
    let victim = open_session(addr, V_NEW).await;
    let headers = session_headers(&victim, V_NEW);
    let secret = post(
        addr,
        &call(2, "add", json!({"a": 40000, "b": 2})),
        &as_refs(&headers),
    )
    .await;
    assert_eq!(secret.tool_text().as_deref(), Some("40002"), "{secret:?}");
    let other = exchange(addr, call_2026(addr, "add", json!({"a": 70000, "b": 7}))).await;
    assert_eq!(other.tool_text().as_deref(), Some("70007"), "{other:?}");

    let attacker = open_session(addr, V_NEW).await;
    let guesses = neighbours(&my_id);
    assert!(!guesses.is_empty(), "no guess made from {my_id}");
    for guess in guesses {
        for (session, version) in [(None, V_2026), (Some(attacker.as_str()), V_NEW)] {
            let got = replayed(addr, &guess, session, version).await;
            for leaked in ["40002", "70007"] {
                assert!(
                    !got.body.contains(leaked),
                    "guessed id {guess} (from {my_id}) replayed a victim's result: {got:?}"
                );
            }
        }
    }
}

#[tokio::test]
async fn a_trickling_body_is_cut_off() {
    let probe = start(
        "security_server",
        &[
            "--http",
            "127.0.0.1:0",
            "--max-connections",
            "4",
            "--body-ms",
            "500",
        ],
    );
    let addr = probe.addr;
    // Four connections take every place, each sending its body a byte every 100 ms.
    let trickles: Vec<_> = (0..4)
        .map(|_| {
            tokio::spawn(async move {
                let mut stream = TcpStream::connect(addr).await.unwrap();
                let head = format!(
                    "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
                     Accept: application/json, text/event-stream\r\nContent-Length: 10000\r\n\r\n{{"
                );
                stream.write_all(head.as_bytes()).await.unwrap();
                let started = Instant::now();
                while started.elapsed() < Duration::from_secs(20) {
                    let (answer, ended) = read_for(&mut stream, Duration::from_millis(100)).await;
                    if ended || !answer.is_empty() {
                        return (
                            started.elapsed(),
                            String::from_utf8_lossy(&answer).into_owned(),
                        );
                    }
                    if stream.write_all(b" ").await.is_err() {
                        return (started.elapsed(), String::new());
                    }
                }
                (started.elapsed(), "still reading after 20 s".to_owned())
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(300)).await;

    // A client that sends its request at once is served, within a few seconds.
    let served = exchange_for(
        addr,
        request("POST", addr, &initialize(V_NEW), &[]),
        Duration::from_secs(5),
    )
    .await;
    assert!(
        served.ended && served.status == 200,
        "slow bodies kept a prompt client out: {served:?}"
    );
    for trickle in trickles {
        let (after, answer) = trickle.await.unwrap();
        assert!(
            after < Duration::from_secs(5),
            "a trickling body was read for {after:?}: {answer}"
        );
        assert!(
            answer.is_empty() || answer.starts_with("HTTP/1.1 408"),
            "a trickling body is answered 408 or dropped: {answer}"
        );
    }
}

/// Starts a slow call (`request`), reads its first event id and drops the connection.
async fn slow_stream(addr: SocketAddr, request: String) -> String {
    let (stream, id) = first_event_id(addr, request).await;
    drop(stream);
    id
}

/// Opens a replay and reads its head; the connection stays open.
async fn open_replay(addr: SocketAddr, request: String) -> (TcpStream, Reply) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let (raw, ended) = read_for(&mut stream, Duration::from_millis(500)).await;
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let reply = Reply {
        status,
        head: head.to_owned(),
        body: body.to_owned(),
        ended,
    };
    (stream, reply)
}

#[tokio::test]
async fn replays_count_against_the_session_limit() {
    let probe = start("security_server", &["--http", "127.0.0.1:0"]);
    let addr = probe.addr;
    let session = open_session(addr, V_NEW).await;
    let headers = session_headers(&session, V_NEW);
    let mut ids = Vec::new();
    for n in 0..9 {
        let body = call(10 + n, "slow", json!({"ms": 20_000}));
        ids.push(slow_stream(addr, request("POST", addr, &body, &as_refs(&headers))).await);
    }
    // Eight live replays of eight streams: held open.
    let mut live = Vec::new();
    for id in &ids[..8] {
        let (stream, head) = open_replay(addr, replay(addr, id, Some(&session), V_NEW)).await;
        assert!(
            head.status == 200 && !head.ended,
            "replay of {id}: {head:?}"
        );
        live.push(stream);
    }
    // A ninth is refused, at once, with a status that says to come back later.
    let refused = exchange(addr, replay(addr, &ids[8], Some(&session), V_NEW)).await;
    assert_eq!(refused.status, 429, "{refused:?}");
    assert!(refused.header("retry-after").is_some(), "{refused:?}");
    // Replaying a stream again ends the replay before it (one live replay per stream).
    let (_again, head) = open_replay(addr, replay(addr, &ids[0], Some(&session), V_NEW)).await;
    assert!(head.status == 200 && !head.ended, "{head:?}");
    let (_, ended) = read_for(&mut live[0], Duration::from_secs(5)).await;
    assert!(ended, "the older replay of the same stream is still open");
}

#[tokio::test]
async fn session_less_replays_are_limited_too() {
    let probe = start(
        "security_server",
        &["--http", "127.0.0.1:0", "--max-sessions", "2"],
    );
    let addr = probe.addr;
    let mut ids = Vec::new();
    for _ in 0..3 {
        ids.push(slow_stream(addr, call_2026(addr, "slow", json!({"ms": 20_000}))).await);
    }
    let mut live = Vec::new();
    for id in &ids[..2] {
        let (stream, head) = open_replay(addr, replay(addr, id, None, V_2026)).await;
        assert!(
            head.status == 200 && !head.ended,
            "replay of {id}: {head:?}"
        );
        live.push(stream);
    }
    let refused = exchange(addr, replay(addr, &ids[2], None, V_2026)).await;
    assert_eq!(refused.status, 429, "{refused:?}");
    let (_again, head) = open_replay(addr, replay(addr, &ids[0], None, V_2026)).await;
    assert!(head.status == 200 && !head.ended, "{head:?}");
    let (_, ended) = read_for(&mut live[0], Duration::from_secs(5)).await;
    assert!(ended, "the older replay of the same stream is still open");
}

#[tokio::test]
async fn sessions_that_only_ping_expire_and_free_the_cap() {
    let probe = start(
        "security_server",
        &[
            "--http",
            "127.0.0.1:0",
            "--max-sessions",
            "2",
            "--idle-ms",
            "1000",
        ],
    );
    let addr = probe.addr;
    let pinging = open_session(addr, V_NEW).await;
    let working = open_session(addr, V_NEW).await;
    let full = post(addr, &initialize(V_NEW), &[]).await;
    assert_eq!(full.status, 503, "the cap is reached: {full:?}");

    // For three idle periods one session only pings, the other lists its tools.
    let ping = r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#;
    let list = r#"{"jsonrpc":"2.0","id":6,"method":"tools/list"}"#;
    let started = Instant::now();
    while started.elapsed() < Duration::from_millis(3000) {
        post(addr, ping, &as_refs(&session_headers(&pinging, V_NEW))).await;
        let listed = post(addr, list, &as_refs(&session_headers(&working, V_NEW))).await;
        assert_eq!(listed.status, 200, "a working session lost: {listed:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let admitted = post(addr, &initialize(V_NEW), &[]).await;
    assert_eq!(
        admitted.status, 200,
        "sessions kept alive by pings pin the cap: {admitted:?}"
    );
    let expired = post(addr, ping, &as_refs(&session_headers(&pinging, V_NEW))).await;
    assert_eq!(expired.status, 404, "{expired:?}");
    let listed = post(addr, list, &as_refs(&session_headers(&working, V_NEW))).await;
    assert_eq!(listed.status, 200, "{listed:?}");
}

/// Runs an SDK client (bounded in time: killed past it) and reads its one-line JSON
/// report.
async fn report(command: Command) -> Value {
    let mut command = tokio::process::Command::from(command);
    command.kill_on_drop(true);
    let output = tokio::time::timeout(PATIENCE, command.output())
        .await
        .expect("the client finishes in time")
        .expect("the client runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the client failed: {stdout}\n{stderr}"
    );
    serde_json::from_str(stdout.trim())
        .unwrap_or_else(|_| panic!("not a JSON report: {stdout}\n{stderr}"))
}

#[tokio::test]
async fn official_clients_still_resume_their_own_streams() {
    let probe = start("security_server", &["--http", "127.0.0.1:0"]);
    let repo = std::env::var("TOOLNEXUS_REPO").unwrap_or_else(|_| ".".to_owned());
    let script = |name: &str| format!("{repo}/tests/security/{name}");
    let python = std::env::var("TOOLNEXUS_PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let clients: [(&str, &str, Command); 3] = [
        ("Python, a session", "2025-11-25", {
            let mut command = Command::new(&python);
            command.arg(script("resume.py")).arg("legacy");
            command
        }),
        ("Python, 2026-07-28", V_2026, {
            let mut command = Command::new(&python);
            command.arg(script("resume.py")).arg(V_2026);
            command
        }),
        (
            "TypeScript, a session",
            "2025-11-25",
            node::node_command(script("resume.cjs")),
        ),
    ];
    // Side by side, each through a proxy of its own that cuts that client's call once.
    let runs = clients.into_iter().map(|(who, protocol, mut command)| {
        let upstream = probe.addr;
        tokio::spawn(async move {
            let (proxy, cuts) = cut::start(upstream, b"\"slow\"").await;
            command.arg(format!("http://{proxy}/mcp"));
            let report = report(command).await;
            assert_eq!(report["text"], "done", "{who}: {report}");
            assert_eq!(report["protocol"], protocol, "{who}: {report}");
            assert_eq!(
                cuts.cut.load(Ordering::SeqCst),
                1,
                "{who}: the stream was not cut"
            );
            assert!(
                cuts.replays.load(Ordering::SeqCst) >= 1,
                "{who}: the answer came without a replay"
            );
        })
    });
    for run in runs.collect::<Vec<_>>() {
        if let Err(failed) = run.await {
            std::panic::resume_unwind(failed.into_panic());
        }
    }
}

/// Content types a page of another site can send without asking first (none, plain text,
/// forms), and near misses of `application/json`.
const NOT_JSON: &[Option<&str>] = &[
    None,
    Some("text/plain"),
    Some("text/plain; charset=utf-8"),
    Some("application/x-www-form-urlencoded"),
    Some("multipart/form-data; boundary=x"),
    Some("application/json-x"),
    Some("application/jsonx"),
    Some("application/json-patch+json"),
    Some("text/json"),
    Some("text/plain; a=application/json"),
];

/// `request` (a POST from `raw::request`) with `content_type` instead of
/// `application/json` (`None`: no Content-Type at all).
fn with_content_type(request: String, content_type: Option<&str>) -> String {
    let json = "Content-Type: application/json\r\n";
    assert!(request.contains(json));
    match content_type {
        Some(other) => request.replacen(json, &format!("Content-Type: {other}\r\n"), 1),
        None => request.replacen(json, "", 1),
    }
}

#[tokio::test]
async fn a_body_that_is_not_json_opens_no_session_and_runs_nothing() {
    for stateless in [false, true] {
        // One session at most: a probe that opened one would lock the client below out.
        let mut args = vec!["--http", "127.0.0.1:0", "--max-sessions", "1"];
        if stateless {
            args.push("--stateless");
        }
        let probe = start("security_server", &args);
        let addr = probe.addr;
        let sum = json!({"a": 2, "b": 3});
        let bodies = [
            request("POST", addr, &initialize(V_NEW), &[]),
            request("POST", addr, &call(7, "add", sum.clone()), &[]),
            call_2026(addr, "add", sum.clone()),
        ];
        for content_type in NOT_JSON {
            for body in &bodies {
                let probe = with_content_type(body.clone(), *content_type);
                let reply = exchange(addr, probe).await;
                let what = format!("stateless {stateless}, Content-Type {content_type:?}");
                // Refused (or cut off before any answer), never served.
                assert!(
                    reply.status == 0 || (400..500).contains(&reply.status),
                    "{what}: {reply:?}"
                );
                assert_eq!(reply.header("mcp-session-id"), None, "{what}: {reply:?}");
                assert_eq!(reply.tool_text(), None, "{what}: {reply:?}");
                assert!(
                    reply.messages().iter().all(|m| m.get("result").is_none()),
                    "{what}: {reply:?}"
                );
            }
        }
        // The same requests as `application/json` are served: the one session place is
        // still free, and the tool runs.
        if !stateless {
            open_session(addr, V_NEW).await;
        }
        let served = exchange(addr, call_2026(addr, "add", sum)).await;
        assert_eq!(served.tool_text().as_deref(), Some("5"), "{served:?}");
    }
}
