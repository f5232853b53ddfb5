//! The attacks of a review of the A2A surface, run against the `a2a` example as it ships
//! (a child process on 127.0.0.1), each refused:
//!
//! - a second client cannot list the first's tasks (with their history and artifacts),
//!   read one, or answer its pending approval (the approved tool does not run), and a
//!   stranger's message with another caller's contextId does not continue that
//!   conversation: for anonymous callers (the example's default) and for callers told
//!   apart by a principal (`--principal-header`);
//! - one anonymous client parking 300 tasks of 256 KiB is refused past the cap, and the
//!   server's memory stays bounded;
//! - a body trickled in a byte at a time is cut off (408, the connection closed);
//! - a POST with no Content-Type (a cross-site Blob) or `text/plain` starts no task;
//! - a foreign `Host` is refused, and never reflected into the card.

#[path = "support/a2a.rs"]
mod a2a;

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::time::Duration;

use a2a::{Served, http, rpc};
use serde_json::{Value, json};

const V1: (&str, &str) = ("A2A-Version", "1.0");

fn message(text: &str, extra: &Value) -> Value {
    let mut message = json!({
        "messageId": format!("m-{}", uuid()), "role": "ROLE_USER", "parts": [{"text": text}],
    });
    for (key, value) in extra.as_object().expect("an object") {
        message[key] = value.clone();
    }
    message
}

fn uuid() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_nanos();
    format!("{nanos:x}-{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

fn send(url: &str, headers: &[(&str, &str)], text: &str, extra: Value) -> Value {
    rpc(
        url,
        headers,
        "SendMessage",
        json!({"message": message(text, &extra)}),
    )
}

fn code(response: &Value) -> i64 {
    response["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error: {response}"))
}

fn task(response: &Value) -> &Value {
    let task = &response["result"]["task"];
    assert!(task.is_object(), "not a task: {response}");
    task
}

/// The id of the approval a task waits on (derived from the call, so from the
/// conversation the call was made in).
fn approval_id(task: &Value) -> String {
    assert_eq!(
        task["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{task}"
    );
    task["status"]["message"]["metadata"]["toolnexus/request"]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("no request: {task}"))
        .to_owned()
}

fn random_id() -> String {
    // A v4 UUID's shape, as the server's ids have.
    let hex = format!(
        "{:032x}",
        u128::from(fastish()) << 64 | u128::from(fastish())
    );
    format!(
        "{}-{}-4{}-8{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[13..16],
        &hex[17..20],
        &hex[20..32]
    )
}

fn fastish() -> u64 {
    use std::hash::{BuildHasher as _, Hasher as _};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write(uuid().as_bytes());
    hasher.finish()
}

#[test]
fn an_anonymous_stranger_learns_and_answers_nothing() {
    let served = Served::example(&[]);
    let url = &served.url;
    // The victim starts a deploy, which waits for its approval.
    let asked = send(url, &[V1], "the web app", json!({}));
    let victim = task(&asked).clone();
    let id = victim["id"].as_str().unwrap();
    let context = victim["contextId"].as_str().unwrap();
    let fresh = approval_id(&victim);

    // The stranger lists: refused, saying how to list, and naming nothing of the victim's.
    let listed = rpc(url, &[V1], "ListTasks", json!({"includeArtifacts": true}));
    assert_eq!(code(&listed), -32602, "{listed}");
    let said = listed.to_string();
    assert!(said.contains("principal"), "{said}");
    assert!(!said.contains(id) && !said.contains("web app"), "{said}");
    // A conversation it makes up holds nothing; ids it guesses are unknown.
    let guessed = rpc(url, &[V1], "ListTasks", json!({"contextId": random_id()}));
    assert_eq!(guessed["result"]["tasks"], json!([]), "{guessed}");
    for guess in [random_id(), random_id()] {
        let got = rpc(url, &[V1], "GetTask", json!({"id": guess}));
        assert_eq!(code(&got), -32001, "{got}");
        let approved = send(url, &[V1], "yes", json!({"taskId": guess}));
        assert_eq!(code(&approved), -32001, "{approved}");
    }
    // The victim's task still waits: nothing approved it, the deploy did not run.
    let still = rpc(url, &[V1], "GetTask", json!({"id": id}));
    assert_eq!(
        still["result"]["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{still}"
    );
    assert!(still["result"]["artifacts"].is_null(), "{still}");
    // The victim, who was told its contextId, lists that conversation.
    let own = rpc(url, &[V1], "ListTasks", json!({"contextId": context}));
    assert_eq!(own["result"]["totalSize"], 1, "{own}");

    // A contextId the victim chose itself: the stranger who sends the same one starts a
    // conversation of its own (its approval is the one a fresh conversation asks), while
    // the victim's server-issued contextId continues the victim's.
    let chosen = json!({"contextId": "project-x"});
    let first = send(url, &[V1], "the web app", chosen.clone());
    let first_id = task(&first)["id"].as_str().unwrap().to_owned();
    assert_eq!(task(&first)["contextId"], "project-x");
    let done = send(url, &[V1], "yes", json!({"taskId": first_id}));
    assert_eq!(
        task(&done)["status"]["state"],
        "TASK_STATE_COMPLETED",
        "{done}"
    );
    let stranger = send(url, &[V1], "the web app", chosen);
    assert_eq!(
        approval_id(task(&stranger)),
        fresh,
        "the stranger's message continued the victim's conversation: {stranger}"
    );
    let answered = send(url, &[V1], "yes", json!({"taskId": id}));
    assert_eq!(task(&answered)["status"]["state"], "TASK_STATE_COMPLETED");
    let continued = send(url, &[V1], "the web app", json!({"contextId": context}));
    assert_ne!(
        approval_id(task(&continued)),
        fresh,
        "the victim's own contextId continues its conversation: {continued}"
    );
}

#[test]
fn with_a_principal_a_stranger_gets_nothing_even_with_the_ids() {
    let served = Served::example(&["--principal-header", "x-user"]);
    let url = &served.url;
    let alice = [V1, ("x-user", "alice")];
    let bob = [V1, ("x-user", "bob")];
    let asked = send(url, &alice, "the web app", json!({}));
    let victim = task(&asked).clone();
    let id = victim["id"].as_str().unwrap();
    let context = victim["contextId"].as_str().unwrap();
    let fresh = approval_id(&victim);

    for headers in [&bob[..], &[V1][..]] {
        let listed = rpc(url, headers, "ListTasks", json!({"contextId": context}));
        assert_eq!(listed["result"]["tasks"], json!([]), "{listed}");
        for (method, params) in [
            ("GetTask", json!({"id": id})),
            ("CancelTask", json!({"id": id})),
            ("SubscribeToTask", json!({"id": id})),
        ] {
            let answer = rpc(url, headers, method, params);
            assert_eq!(code(&answer), -32001, "{method}: {answer}");
            assert!(!answer.to_string().contains("web app"), "{answer}");
        }
        let approved = send(url, headers, "yes", json!({"taskId": id}));
        assert_eq!(code(&approved), -32001, "{approved}");
    }
    let bobs = rpc(url, &bob, "ListTasks", json!({}));
    assert_eq!(bobs["result"]["totalSize"], 0, "{bobs}");
    // Alice's task still waits; the deploy did not run.
    let still = rpc(url, &alice, "GetTask", json!({"id": id}));
    assert_eq!(
        still["result"]["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{still}"
    );
    let done = send(url, &alice, "yes", json!({"taskId": id}));
    assert_eq!(
        task(&done)["artifacts"][0]["parts"][0]["text"],
        "Done: deployed the web app."
    );
    // Bob's message with alice's contextId starts afresh; alice's continues hers.
    let theirs = send(url, &bob, "the web app", json!({"contextId": context}));
    assert_eq!(approval_id(task(&theirs)), fresh, "{theirs}");
    let hers = send(url, &alice, "the web app", json!({"contextId": context}));
    assert_ne!(approval_id(task(&hers)), fresh, "{hers}");
}

/// The resident memory of a process, in KiB.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("procfs");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS")
}

#[test]
fn parked_tasks_are_capped_and_memory_stays_bounded() {
    let served = Served::example(&[]);
    let url = &served.url;
    let before = rss_kib(served.child.id());
    let big = "x".repeat(256 * 1024);
    let (mut parked, mut refused) = (0, Vec::new());
    for _ in 0..300 {
        let answer = send(url, &[V1], &big, json!({}));
        if answer.get("error").is_some() {
            refused.push(answer["error"].clone());
        } else {
            assert_eq!(
                task(&answer)["status"]["state"],
                "TASK_STATE_INPUT_REQUIRED"
            );
            parked += 1;
        }
    }
    let after = rss_kib(served.child.id());
    println!(
        "300 tasks of 256 KiB from one anonymous client: {parked} parked, {} refused; \
         server memory {} MiB before, {} MiB after",
        refused.len(),
        before / 1024,
        after / 1024
    );
    // Refused past a cap: the 32 unfinished tasks a caller may have, or, first here, the
    // 64 MiB of tasks the server keeps (a parked task of 256 KiB keeps its message, the
    // question and the halted run: about 2.5 MB of JSON).
    assert!((1..=32).contains(&parked), "{parked} parked");
    for error in &refused {
        assert_eq!(error["code"], -32000, "{error}");
        assert_eq!(error["data"][0]["reason"], "RESOURCE_EXHAUSTED", "{error}");
        let scope = error["data"][0]["metadata"]["scope"].as_str().unwrap();
        let said = error["message"].as_str().unwrap();
        let setter = match scope {
            "unfinished_per_caller" => "max_unfinished_tasks_per_caller",
            "stored_bytes" => "max_stored_bytes",
            other => panic!("refused by {other}: {error}"),
        };
        assert!(said.contains(setter), "{said}");
    }
    assert!(
        after.saturating_sub(before) < 400 * 1024,
        "memory grew from {before} KiB to {after} KiB"
    );
}

/// Sends `head` and then the body a byte at a time, every `every`, until the server
/// closes the connection (or `max` bytes); what the server answered.
fn trickle(url: &str, head: &str, every: Duration, max: usize) -> String {
    let host = url.strip_prefix("http://").unwrap();
    let mut stream = TcpStream::connect(host).unwrap();
    stream.write_all(head.as_bytes()).unwrap();
    let mut reader = stream.try_clone().unwrap();
    reader
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let writer = std::thread::spawn(move || {
        for _ in 0..max {
            std::thread::sleep(every);
            if stream.write_all(b" ").is_err() {
                return;
            }
        }
    });
    let mut answer = Vec::new();
    let _ = reader.read_to_end(&mut answer);
    writer.join().unwrap();
    String::from_utf8_lossy(&answer).into_owned()
}

#[test]
fn a_trickled_body_is_cut_off() {
    let served = Served::example(&["--body-timeout", "1500"]);
    let host = served.url.strip_prefix("http://").unwrap().to_owned();
    // A body of 1000 bytes of which at most 60 ever come: only the timeout ends it.
    let head = format!(
        "POST / HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
         Content-Length: 1000\r\n\r\n{{"
    );
    let answer = trickle(&served.url, &head, Duration::from_millis(500), 60);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(
        answer.to_ascii_lowercase().contains("connection: close"),
        "{answer}"
    );
}

#[test]
fn a_body_that_is_not_json_starts_no_task() {
    let served = Served::example(&["--principal-header", "x-user"]);
    let url = &served.url;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
        "params": {"message": message("the web app", &json!({}))}})
    .to_string();
    // No Content-Type (a cross-site `Blob`, sent without a preflight), and text/plain.
    for headers in [
        vec![V1, ("x-user", "alice")],
        vec![V1, ("x-user", "alice"), ("Content-Type", "text/plain")],
    ] {
        let (status, text) = http("POST", url, &headers, &body);
        assert_eq!(status, 415, "{text}");
    }
    let listed = rpc(url, &[V1, ("x-user", "alice")], "ListTasks", json!({}));
    assert_eq!(listed["result"]["totalSize"], 0, "{listed}");
}

/// One request with this `Host` header: the status and the whole response.
fn with_host(url: &str, host: &str, request: &str) -> (u16, String) {
    let addr = url.strip_prefix("http://").unwrap();
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let request = request.replace("{host}", host);
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let status = answer
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, answer)
}

#[test]
fn a_foreign_host_is_refused_and_never_reflected() {
    let served = Served::example(&[]);
    let url = &served.url;
    let port = url.rsplit(':').next().unwrap();
    let card = "GET /.well-known/agent-card.json HTTP/1.1\r\nHost: {host}\r\n\
                Connection: close\r\n\r\n";
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
        "params": {"message": message("the web app", &json!({}))}})
    .to_string();
    let post = format!(
        "POST / HTTP/1.1\r\nHost: {{host}}\r\nContent-Type: application/json\r\n\
         A2A-Version: 1.0\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    // A page whose name was rebound to 127.0.0.1 sends its own name.
    let evil = format!("evil.example:{port}");
    for request in [card, post.as_str()] {
        let (status, answer) = with_host(url, &evil, request);
        assert_eq!(status, 403, "{answer}");
        assert!(!answer.contains("evil.example"), "{answer}");
    }
    // A loopback name is let in, and the card still gives the bound address.
    let (status, answer) = with_host(url, &format!("localhost:{port}"), card);
    assert_eq!(status, 200, "{answer}");
    let text = answer.split_once("\r\n\r\n").unwrap().1;
    let card: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {answer}"));
    assert_eq!(
        card["supportedInterfaces"][0]["url"],
        format!("{url}/"),
        "{card}"
    );
    assert!(!text.contains("localhost"), "{text}");
}

/// A one-route HTTP server on a free loopback port, answering every request with
/// `respond(path, port)` (a whole response), and keeping each request's head.
struct Tiny {
    port: u16,
    heads: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Tiny {
    fn start(respond: fn(&str, u16) -> String) -> Tiny {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let heads = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let kept = heads.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap_or(0) == 1 {
                    head.push(byte[0]);
                }
                let head = String::from_utf8_lossy(&head).into_owned();
                let path = head.split_whitespace().nth(1).unwrap_or("/").to_owned();
                kept.lock().unwrap().push(head);
                let _ = stream.write_all(respond(&path, port).as_bytes());
            }
        });
        Tiny { port, heads }
    }

    fn heads(&self) -> Vec<String> {
        self.heads.lock().unwrap().clone()
    }
}

fn ok_json(body: &str) -> String {
    format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    )
}

fn redirect(to: &str) -> String {
    format!(
        "HTTP/1.1 302 Found\r\nLocation: {to}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    )
}

/// A card whose endpoint is at `endpoint`.
fn card_at(endpoint: &str) -> String {
    json!({
        "name": "peer", "description": "A peer.", "version": "1.0.0",
        "supportedInterfaces": [
            {"url": endpoint, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {"streaming": false}, "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "run", "name": "Run", "description": "Runs.", "tags": []}],
    })
    .to_string()
}

/// The other origin: answers anything with a card whose endpoint is itself.
fn elsewhere(_path: &str, port: u16) -> String {
    ok_json(&card_at(&format!("http://127.0.0.1:{port}/")))
}

const SECRET: &str = "s3cret-token-for-the-card-origin";

fn connect(card: String) -> Result<toolnexus::a2a::A2aAgent, toolnexus::a2a::A2aError> {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(
        toolnexus::a2a::A2aAgent::builder(card)
            .header("X-Api-Key", SECRET)
            .bearer_token(SECRET)
            .timeout(Duration::from_secs(10))
            .connect(),
    )
}

#[test]
fn an_agents_headers_stay_with_the_cards_origin() {
    let other = Tiny::start(elsewhere);
    // The card's origin redirects, within itself and then to the other port.
    static OTHER: std::sync::OnceLock<u16> = std::sync::OnceLock::new();
    OTHER.set(other.port).unwrap();
    let origin = Tiny::start(|path, port| match path {
        "/moved" => redirect(&format!("http://127.0.0.1:{port}/card")),
        "/card" => ok_json(&card_at(&format!("http://127.0.0.1:{port}/"))),
        "/away" => redirect(&format!("http://127.0.0.1:{}/card", OTHER.get().unwrap())),
        "/endpoint-away" => ok_json(&card_at(&format!(
            "http://127.0.0.1:{}/",
            OTHER.get().unwrap()
        ))),
        _ => "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".into(),
    });
    let base = format!("http://127.0.0.1:{}", origin.port);

    // Within the origin, a redirect is followed, headers and all.
    let agent = connect(format!("{base}/moved")).expect("a same-origin redirect is followed");
    assert_eq!(agent.name(), "peer");
    let heads = origin.heads();
    assert!(
        heads.iter().all(|h| h.contains(SECRET)),
        "the card's origin got the headers: {heads:?}"
    );

    // To another origin (another port), a redirect is not followed: the connect fails
    // with the redirect, and the other origin never sees the headers.
    let away = connect(format!("{base}/away")).unwrap_err();
    assert!(away.reason.contains("302"), "{away}");
    assert!(!away.to_string().contains(SECRET), "{away}");
    // A card that names an endpoint on another origin is refused, saying how to allow it.
    let endpoint = connect(format!("{base}/endpoint-away")).unwrap_err();
    assert!(
        endpoint.reason.contains("allow_header_origin"),
        "{endpoint}"
    );
    assert_eq!(
        other.heads(),
        Vec::<String>::new(),
        "the other origin was reached"
    );

    // Plain http to another machine: refused before anything is sent (192.0.2.1 is a
    // documentation address that nothing answers).
    let plain = connect("http://192.0.2.1/.well-known/agent-card.json".into()).unwrap_err();
    assert!(plain.reason.contains("unencrypted"), "{plain}");
}
