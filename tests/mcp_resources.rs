//! MCP resources and prompts served by `McpServer` and read by `McpClient`.
//!
//! - the official TypeScript SDK's client reads the example server's resource, template
//!   and prompt (the Python SDK's does in `tests/mcp.rs`), follows the pages of a long
//!   listing, and watches two sessions of one server: updates reach only the session that
//!   subscribed, until it unsubscribes; list changes reach every session;
//! - raw JSON-RPC over in-memory pipes (stdio): the same per session, with the protocol's
//!   error codes for what cannot be served;
//! - `McpClient` against an in-process server: listings, reads (text, bytes, a template
//!   whose function takes a toolkit state), prompts with images and embedded resources,
//!   completion, and subscriptions, on the `initialize` handshake and on MCP 2026-07-28
//!   (`subscriptions/listen`).
//!
//! The Node script needs `$TOOLNEXUS_NODE_MODULES` (`.ci/test` installs the SDK); without
//! it these tests FAIL, saying how to set it up.

#[path = "support/mcp_peer.rs"]
mod mcp_peer;
#[path = "support/node.rs"]
mod node;

use std::io::{BufRead as _, BufReader};
use std::process::Stdio;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader as AsyncBufReader, DuplexStream};
use toolnexus::mcp::{McpClient, McpServer, ResourceUpdates, ServerHandle};
use toolnexus::primitive::{
    CompletionRequest, Prompt, PromptContent, PromptMessage, Resource, ResourceContents,
    ResourceError,
};
use toolnexus::{ContentPart, Json, State, Toolkit, prompt, prompts, resource, resources};

/// Hang protection only: no assertion depends on how long anything takes.
const PATIENCE: Duration = Duration::from_secs(60);

const GIF: &[u8] = b"GIF89a\x01\x00\x01\x00\x00\x00\x00;";

fn script() -> std::path::PathBuf {
    mcp_peer::root().join("tests/mcp_client/resources.cjs")
}

/// Runs `resources.cjs ARGS` to the end and returns its JSON report.
fn run_node(args: &[&str]) -> Value {
    let output = node::node_command(script())
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("node runs");
    assert!(
        output.status.success(),
        "the TypeScript client failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("the client prints a JSON report")
}

#[test]
fn the_typescript_client_reads_the_examples_resource_template_and_prompt() {
    let binary = mcp_peer::build_example("mcp_server");
    let report = run_node(&["read", "stdio", binary.to_str().expect("utf-8 path")]);

    let capabilities = &report["capabilities"];
    assert_eq!(
        capabilities["resources"]["subscribe"], true,
        "{capabilities}"
    );
    assert!(capabilities["completions"].is_object(), "{capabilities}");
    assert_eq!(report["resources"]["items"][0]["uri"], "docs://readme");
    assert_eq!(
        report["templates"]["items"][0]["uriTemplate"],
        "deploy://{env}/status"
    );
    let readme = &report["reads"]["docs://readme"]["result"]["contents"][0];
    assert_eq!(readme["mimeType"], "text/markdown");
    assert!(readme["text"].as_str().unwrap().contains("deploy_service"));
    let status = &report["template_read"]["result"]["contents"][0];
    assert_eq!(status["uri"], "deploy://production/status");
    let status: Value = serde_json::from_str(status["text"].as_str().unwrap()).unwrap();
    assert_eq!(status["env"], "production");
    assert_eq!(report["not_found"]["error"]["code"], -32002, "{report}");

    let prompt = &report["prompts"]["items"][0];
    assert_eq!(prompt["name"], "plan_deploy");
    assert_eq!(prompt["arguments"][0]["required"], true);
    let messages = &report["prompt"]["result"]["messages"];
    assert_eq!(
        messages[0]["content"]["resource"]["mimeType"],
        "text/markdown"
    );
    assert!(
        messages[1]["content"]["text"]
            .as_str()
            .unwrap()
            .contains("to production")
    );
    assert_eq!(
        report["unknown_prompt"]["error"]["code"], -32602,
        "{report}"
    );
    assert_eq!(
        report["completion"]["result"]["completion"]["values"],
        json!(["production"])
    );
}

// ---------------------------------------------------------------------------------------
// A server with many resources, a template reading a state, and prompts
// ---------------------------------------------------------------------------------------

struct Visits(AtomicU32);

/// One user's profile.
#[resource(uri = "users://{id}/profile", mime_type = "application/json")]
fn profile(
    /// The user's id.
    #[complete(values = ["1", "2", "10"])]
    id: u32,
    visits: State<Visits>,
) -> Result<Json<Value>, ResourceError> {
    let seen = visits.0.fetch_add(1, Ordering::Relaxed);
    match id {
        1..=9 => Ok(Json(json!({"id": id, "visits": seen}))),
        _ => Err(ResourceError::not_found(format!("users://{id}/profile"))),
    }
}

/// The logo.
#[resource(uri = "images://logo")]
fn logo() -> Result<ContentPart, toolnexus::tool::ContentError> {
    ContentPart::image_bytes(GIF, "image/gif")
}

/// Describe an image.
#[prompt]
fn describe(
    /// How long the description may be.
    #[complete(values = ["short", "long"])]
    length: Option<String>,
) -> Result<Vec<PromptMessage>, toolnexus::tool::ContentError> {
    Ok(vec![
        PromptMessage::user(ContentPart::image_bytes(GIF, "image/gif")?),
        PromptMessage::user(ResourceContents::text("a pixel").with_uri("notes://pixel")),
        PromptMessage::assistant(format!(
            "A {} description follows.",
            length.as_deref().unwrap_or("short")
        )),
    ])
}

fn note(n: usize) -> Resource {
    Resource::new_sync(format!("notes://{n}"), move |_, _| format!("note {n}"))
        .unwrap()
        .with_name(format!("note-{n}"))
}

/// Five notes, the profile template, the logo and the prompt; pages of two.
fn server() -> McpServer {
    let toolkit = Toolkit::new().with_state(Visits(AtomicU32::new(0)));
    McpServer::new(toolkit)
        .page_size(2)
        .resources((0..5).map(note))
        .resources(resources![profile, logo])
        .prompts(prompts![describe])
}

async fn serve() -> (toolnexus::mcp::HttpServer, ServerHandle, String) {
    serve_this(server()).await
}

async fn serve_this(server: McpServer) -> (toolnexus::mcp::HttpServer, ServerHandle, String) {
    let handle = server.handle();
    let http = server.serve_http("127.0.0.1:0").await.expect("binds");
    let url = http.url();
    (http, handle, url)
}

#[tokio::test(flavor = "multi_thread")]
async fn the_typescript_client_follows_the_pages_of_a_long_listing() {
    let (http, _handle, url) = serve().await;
    let report = tokio::task::spawn_blocking(move || run_node(&["read", "http", &url]))
        .await
        .unwrap();
    // Six fixed resources in pages of two; the template is listed apart.
    assert_eq!(report["resources"]["pages"], 3, "{}", report["resources"]);
    assert_eq!(report["resources"]["items"].as_array().unwrap().len(), 6);
    assert_eq!(
        report["templates"]["items"][0]["uriTemplate"],
        "users://{id}/profile"
    );
    let note = &report["reads"]["notes://3"]["result"]["contents"][0];
    assert_eq!(note["text"], "note 3");
    let logo = &report["reads"]["images://logo"]["result"]["contents"][0];
    assert_eq!(logo["mimeType"], "image/gif");
    assert_eq!(
        logo["blob"],
        ContentPart::image_bytes(GIF, "image/gif")
            .unwrap()
            .base64()
            .unwrap()
    );
    http.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn updates_reach_the_subscribed_session_only_and_list_changes_every_session() {
    let (http, handle, url) = serve().await;
    let watched = "notes://1";
    let mut child = node::node_command(script())
        .args(["watch", &url, watched])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("node runs");
    let (steps_tx, mut steps) = tokio::sync::mpsc::unbounded_channel::<Value>();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = steps_tx.send(serde_json::from_str(&line).expect("a JSON line"));
        }
    });
    let mut next = async || {
        tokio::time::timeout(PATIENCE, steps.recv())
            .await
            .expect("the client moves on")
            .expect("the client printed a step")
    };

    assert_eq!(next().await["step"], "subscribed");
    assert_eq!(
        handle.resource_updated(watched).await,
        1,
        "one session subscribed"
    );
    assert_eq!(handle.resource_updated("notes://2").await, 0);
    assert_eq!(handle.add_resource(note(9)).await, 2, "both sessions told");
    let reviewed = Prompt::new_sync("review", |_, _| "Review it.");
    assert_eq!(handle.add_prompt(reviewed).await, 2);

    assert_eq!(next().await["step"], "unsubscribed");
    assert_eq!(
        handle.resource_updated(watched).await,
        0,
        "nobody subscribed now"
    );
    assert!(handle.remove_resource("notes://9").await);
    assert!(!handle.remove_resource("notes://9").await);

    let done = next().await;
    assert_eq!(done["step"], "done");
    // Each session's notifications arrive in order: A heard no update after it
    // unsubscribed, before the second list change.
    assert_eq!(
        done["a"],
        json!([
            "updated notes://1",
            "resources/list_changed",
            "prompts/list_changed",
            "resources/list_changed"
        ])
    );
    assert_eq!(
        done["b"],
        json!([
            "resources/list_changed",
            "prompts/list_changed",
            "resources/list_changed"
        ])
    );
    assert!(child.wait().unwrap().success());
    http.shutdown().await.unwrap();
}

// ---------------------------------------------------------------------------------------
// Raw JSON-RPC over in-memory pipes
// ---------------------------------------------------------------------------------------

/// A client speaking raw JSON-RPC lines with a server over an in-memory pipe (the stdio
/// transport's framing), keeping the notifications it reads while it waits for answers.
struct Raw {
    write: tokio::io::WriteHalf<DuplexStream>,
    lines: tokio::io::Lines<AsyncBufReader<tokio::io::ReadHalf<DuplexStream>>>,
    notes: std::collections::VecDeque<Value>,
}

impl Raw {
    async fn start(server: &McpServer) -> Raw {
        let (ours, theirs) = tokio::io::duplex(1 << 16);
        let (read, write) = tokio::io::split(theirs);
        tokio::spawn(server.clone().serve_io(read, write));
        let (read, write) = tokio::io::split(ours);
        let mut raw = Raw {
            write,
            lines: AsyncBufReader::new(read).lines(),
            notes: Default::default(),
        };
        let params = json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"}
        });
        raw.request(0, "initialize", params).await;
        raw.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        raw
    }

    async fn send(&mut self, message: Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.write.write_all(line.as_bytes()).await.unwrap();
    }

    async fn line(&mut self) -> Value {
        let line = tokio::time::timeout(PATIENCE, self.lines.next_line())
            .await
            .expect("the server answers")
            .unwrap()
            .expect("the server keeps the connection open");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    }

    async fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        loop {
            let message = self.line().await;
            if message.get("id").is_some() {
                assert_eq!(message["id"], id, "{message}");
                return message;
            }
            self.notes.push_back(message);
        }
    }

    /// The method of the next notification (of one already read, first).
    async fn note(&mut self) -> String {
        let note = match self.notes.pop_front() {
            Some(note) => note,
            None => self.line().await,
        };
        let method = note["method"].as_str().expect("a notification").to_owned();
        match note["params"]["uri"].as_str() {
            Some(uri) => format!("{method} {uri}"),
            None => method,
        }
    }
}

#[tokio::test]
async fn over_stdio_each_session_has_its_own_subscriptions() {
    let server = server();
    let handle = server.handle();
    let mut a = Raw::start(&server).await;
    let mut b = Raw::start(&server).await;
    let init = a.request(1, "ping", json!({})).await;
    assert_eq!(init["result"], json!({}));
    // B has initialized and been served: its client is known.
    let listed = b.request(1, "resources/list", json!({})).await;
    assert_eq!(listed["result"]["nextCursor"], "2", "{listed}");

    let subscribed = a
        .request(
            2,
            "resources/subscribe",
            json!({"uri": "users://1/profile"}),
        )
        .await;
    assert_eq!(subscribed["result"], json!({}));
    assert_eq!(handle.resource_updated("users://1/profile").await, 1);
    assert_eq!(
        a.note().await,
        "notifications/resources/updated users://1/profile"
    );
    assert_eq!(handle.add_resource(note(7)).await, 2);
    assert_eq!(a.note().await, "notifications/resources/list_changed");
    assert_eq!(b.note().await, "notifications/resources/list_changed");

    let done = a
        .request(
            3,
            "resources/unsubscribe",
            json!({"uri": "users://1/profile"}),
        )
        .await;
    assert_eq!(done["result"], json!({}));
    assert_eq!(handle.resource_updated("users://1/profile").await, 0);

    // A session that ends is forgotten: only B hears the next change.
    drop(a);
    let started = std::time::Instant::now();
    loop {
        let told = handle.prompts_changed().await;
        assert_eq!(b.note().await, "notifications/prompts/list_changed");
        if told == 1 {
            break;
        }
        assert!(
            started.elapsed() < PATIENCE,
            "the closed session is still told"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn what_cannot_be_served_gets_the_protocols_error() {
    let server = server();
    let mut raw = Raw::start(&server).await;
    let cases = [
        (
            "resources/list",
            json!({"cursor": "later"}),
            -32602,
            "Invalid cursor",
        ),
        (
            "resources/list",
            json!({"cursor": "99"}),
            -32602,
            "Invalid cursor",
        ),
        (
            "resources/read",
            json!({"uri": "users://77/profile"}),
            -32002,
            "users://77/profile",
        ),
        (
            "resources/read",
            json!({"uri": "nothing://here"}),
            -32002,
            "nothing://here",
        ),
        (
            "resources/read",
            json!({"uri": "users://ada/profile"}),
            -32602,
            "id: invalid",
        ),
        // A value is one path segment at most, however it is encoded.
        (
            "resources/read",
            json!({"uri": "users://..%2F..%2Fetc/profile"}),
            -32002,
            "etc",
        ),
        (
            "resources/subscribe",
            json!({"uri": "nothing://here"}),
            -32002,
            "nothing://here",
        ),
        (
            "prompts/get",
            json!({"name": "nope"}),
            -32602,
            "Unknown prompt: nope",
        ),
        (
            "prompts/get",
            json!({"name": "describe", "arguments": {"length": "short", "extra": "x"}}),
            -32602,
            "extra",
        ),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "nope"}, "argument": {"name": "a", "value": ""}}),
            -32602,
            "Unknown prompt",
        ),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/resource", "uri": "users://{name}"}, "argument": {"name": "a", "value": ""}}),
            -32602,
            "Unknown resource template",
        ),
    ];
    for (id, (method, params, code, says)) in (10..).zip(cases) {
        let answer = raw.request(id, method, params.clone()).await;
        let error = &answer["error"];
        assert_eq!(error["code"], code, "{method} {params}: {answer}");
        assert!(
            error["message"].as_str().unwrap().contains(says),
            "{method} {params}: {answer}"
        );
    }
    // The session still serves.
    let read = raw
        .request(30, "resources/read", json!({"uri": "users://2/profile"}))
        .await;
    assert_eq!(
        read["result"]["contents"][0]["mimeType"],
        "application/json"
    );
    let completed = raw
        .request(
            31,
            "completion/complete",
            json!({
                "ref": {"type": "ref/resource", "uri": "users://{id}/profile"},
                "argument": {"name": "id", "value": "1"}
            }),
        )
        .await;
    assert_eq!(
        completed["result"]["completion"],
        json!({"values": ["1", "10"], "total": 2, "hasMore": false})
    );
}

// ---------------------------------------------------------------------------------------
// McpClient
// ---------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread")]
async fn mcp_client_lists_reads_gets_and_completes() {
    let (http, _handle, url) = serve().await;
    let client = McpClient::connect(url.as_str()).await.expect("connects");

    let listed = client.resources().await.unwrap();
    let uris: Vec<&str> = listed.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(
        uris,
        [
            "notes://0",
            "notes://1",
            "notes://2",
            "notes://3",
            "notes://4",
            "images://logo"
        ]
    );
    assert_eq!(listed[5].description.as_deref(), Some("The logo."));
    let templates = client.resource_templates().await.unwrap();
    assert_eq!(templates[0].uri_template, "users://{id}/profile");
    assert_eq!(templates[0].mime_type.as_deref(), Some("application/json"));

    let logo = client.read_resource("images://logo").await.unwrap();
    assert_eq!(logo[0].as_bytes(), Some(GIF));
    assert_eq!(logo[0].mime_type(), Some("image/gif"));
    // The template's function reads the toolkit's state: the visits count up.
    let first = client.read_resource("users://3/profile").await.unwrap();
    let second = client.read_resource("users://3/profile").await.unwrap();
    let visits = |c: &[ResourceContents]| {
        serde_json::from_str::<Value>(c[0].as_text().unwrap()).unwrap()["visits"].clone()
    };
    assert_eq!((visits(&first), visits(&second)), (json!(0), json!(1)));
    let missing = client
        .read_resource("users://12/profile")
        .await
        .unwrap_err();
    assert!(
        missing.to_string().contains("users://12/profile"),
        "{missing}"
    );

    let prompts = client.prompts().await.unwrap();
    assert_eq!(prompts[0].name, "describe");
    assert!(!prompts[0].arguments[0].required);
    let reply = client
        .prompt("describe", [("length", "long")])
        .await
        .unwrap();
    let kinds: Vec<&str> = reply
        .messages
        .iter()
        .map(|m| match &m.content {
            PromptContent::Part(part) => part.mime_type(),
            PromptContent::Resource(contents) => contents.uri(),
            PromptContent::Text(text) => text,
            _ => "other",
        })
        .collect();
    assert_eq!(
        kinds,
        ["image/gif", "notes://pixel", "A long description follows."]
    );

    let offered = client
        .complete_prompt("describe", &CompletionRequest::new("length", "l"))
        .await
        .unwrap();
    assert_eq!(offered.values, ["long"]);
    let offered = client
        .complete_resource("users://{id}/profile", &CompletionRequest::new("id", ""))
        .await
        .unwrap();
    assert_eq!((offered.values.len(), offered.total), (3, Some(3)));
    http.shutdown().await.unwrap();
}

/// Waits until `heard` completes, sending list changes until it does: the client's event
/// stream opens a moment after it connects, and a notification sent before is not
/// replayed to it.
async fn until_heard(handle: &ServerHandle, heard: impl std::future::Future<Output = ()>) {
    let mut heard = std::pin::pin!(heard);
    tokio::time::timeout(PATIENCE, async {
        loop {
            handle.resources_changed().await;
            if tokio::time::timeout(Duration::from_millis(50), heard.as_mut())
                .await
                .is_ok()
            {
                return;
            }
        }
    })
    .await
    .expect("the client hears the server");
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_client_subscribes_to_updates_and_hears_list_changes() {
    let (http, handle, url) = serve().await;
    let client = McpClient::connect(url.as_str()).await.unwrap();
    until_heard(&handle, client.resources_changed()).await;
    let mut updates = client.resource_updates();
    client.subscribe("notes://4").await.unwrap();
    assert_eq!(handle.resource_updated("notes://4").await, 1);
    let heard = tokio::time::timeout(PATIENCE, updates.next())
        .await
        .unwrap();
    assert_eq!(heard.as_deref(), Some("notes://4"));

    let prompts = client.prompts_changed();
    handle
        .add_prompt(Prompt::new_sync("later", |_, _| "Later."))
        .await;
    tokio::time::timeout(PATIENCE, prompts).await.unwrap();
    assert_eq!(client.prompts().await.unwrap().len(), 2);

    client.unsubscribe("notes://4").await.unwrap();
    assert_eq!(handle.resource_updated("notes://4").await, 0);
    http.shutdown().await.unwrap();
}

/// Sends updates of `uri` until a listen takes one; then the client hears it.
async fn until_listened(handle: &ServerHandle, uri: &str, updates: &mut ResourceUpdates) {
    let started = std::time::Instant::now();
    while handle.resource_updated(uri).await == 0 {
        assert!(started.elapsed() < PATIENCE, "no listen took the update");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let heard = tokio::time::timeout(PATIENCE, updates.next())
        .await
        .unwrap();
    assert_eq!(heard.as_deref(), Some(uri));
}

#[tokio::test(flavor = "multi_thread")]
async fn on_mcp_2026_07_28_a_subscription_is_a_listen_the_client_renews() {
    // Listens end after 300 ms: the client listens again, and an abandoned one is freed.
    let server = server().listen_ttl(Duration::from_millis(300));
    let (http, handle, url) = serve_this(server).await;
    let client = McpClient::http(url.as_str())
        .latest_protocol()
        .connect()
        .await
        .unwrap();
    let mut updates = client.resource_updates();
    client.subscribe("users://5/profile").await.unwrap();
    // The server keeps the listen's sink once it has acknowledged it.
    until_listened(&handle, "users://5/profile", &mut updates).await;
    // Other URIs are not this listen's.
    assert_eq!(handle.resource_updated("users://6/profile").await, 0);
    // Past the first listen's time, updates still come: the client listened again.
    tokio::time::sleep(Duration::from_millis(400)).await;
    until_listened(&handle, "users://5/profile", &mut updates).await;

    // Unsubscribing drops the listen; the server lets its sink go by its time at most.
    client.unsubscribe("users://5/profile").await.unwrap();
    let started = std::time::Instant::now();
    while handle.resource_updated("users://5/profile").await != 0 {
        assert!(started.elapsed() < PATIENCE, "the listen never ended");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    http.shutdown().await.unwrap();
}
