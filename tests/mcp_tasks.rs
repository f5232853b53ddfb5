//! Long-running tools as MCP tasks (the `io.modelcontextprotocol/tasks` extension,
//! SEP-2663, with MCP 2026-07-28), served by `tests/tasks/server.rs` in child processes
//! on 127.0.0.1, killed by the tests:
//!
//! - a raw-JSON probe over plain HTTP that checks every message against the extension's
//!   text (the rules are quoted where they are tested);
//! - rmcp 3.11's own client, the one official client that implements the extension (the
//!   Python SDK 2.3 and the TypeScript SDK 2.x clients do not: see the README);
//! - a server killed with SIGKILL and restarted on the same SQLite file (and PostgreSQL
//!   database) keeps its tasks;
//! - a task started on one replica is read, answered and cancelled through the other,
//!   behind nginx (`$TOOLNEXUS_NGINX`).

#[path = "support/example.rs"]
mod example;
#[path = "support/nginx.rs"]
mod nginx;
#[path = "support/postgres.rs"]
mod postgres;

use std::io::{BufRead as _, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use example::example;
use nginx::{free_port, start_nginx};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

/// Hang protection only.
const PATIENCE: Duration = Duration::from_secs(30);
const VERSION: &str = "2026-07-28";
const TASKS: &str = "io.modelcontextprotocol/tasks";

/// A task server in a child process, SIGKILLed when dropped.
struct Server {
    child: Child,
    port: u16,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `task_server NAME 127.0.0.1:0 STORE stateless` (`lease_ms`: the task lease).
fn start(name: &str, store: &str, lease_ms: Option<u64>) -> Server {
    let mut command = Command::new(example("task_server"));
    command
        .args([name, "127.0.0.1:0", store, "stateless"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    if let Some(ms) = lease_ms {
        command.env("TASK_LEASE_MS", ms.to_string());
    }
    let mut child = command.spawn().expect("the task server starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("its first line");
    let port = line
        .trim()
        .strip_prefix("listening on http://127.0.0.1:")
        .and_then(|rest| rest.trim_end_matches("/mcp").parse().ok())
        .unwrap_or_else(|| panic!("not `listening on URL`: {line:?}"));
    Server { child, port }
}

/// The request `_meta` of 2026-07-28 (SEP-2575), with the tasks extension or without.
fn meta(tasks: bool) -> Value {
    let extensions = if tasks { json!({TASKS: {}}) } else { json!({}) };
    json!({
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientInfo": {"name": "raw-probe", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {"extensions": extensions},
    })
}

/// One JSON-RPC request over plain HTTP/1.1 to `port`; the JSON-RPC response. `name` is
/// the `Mcp-Name` header: the tool, or the task id for `tasks/*` ("the client MUST set
/// the `Mcp-Name` header … to the value of `params.taskId`").
async fn rpc(port: u16, method: &str, name: &str, mut params: Value, tasks: bool) -> Value {
    params["_meta"] = meta(tasks);
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params}).to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: {VERSION}\r\n\
         Mcp-Method: {method}\r\nMcp-Name: {name}\r\nConnection: close\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let exchange = async {
        let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port)).await?;
        stream.write_all(request.as_bytes()).await?;
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).await?;
        Ok::<_, std::io::Error>(String::from_utf8_lossy(&raw).into_owned())
    };
    let text = tokio::time::timeout(PATIENCE, exchange)
        .await
        .expect("the server answers in time")
        .expect("the exchange");
    let (_, body) = text.split_once("\r\n\r\n").expect("an HTTP response");
    // A JSON body, or one server-sent event carrying the response.
    let json = body
        .lines()
        .find_map(|line| {
            let line = line.strip_prefix("data:").unwrap_or(line).trim();
            line.starts_with('{').then(|| line.to_owned())
        })
        .unwrap_or_else(|| panic!("no JSON-RPC response in {text:?}"));
    let response: Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(response["jsonrpc"], "2.0", "{response}");
    assert_eq!(
        response["id"], 7,
        "every request gets its own answer: {response}"
    );
    response
}

fn result(response: &Value) -> &Value {
    assert!(response.get("error").is_none(), "an error: {response}");
    &response["result"]
}

async fn call(port: u16, tool: &str, args: Value, tasks: bool) -> Value {
    let params = json!({"name": tool, "arguments": args});
    result(&rpc(port, "tools/call", tool, params, tasks).await).clone()
}

async fn get(port: u16, id: &str) -> Value {
    rpc(port, "tasks/get", id, json!({"taskId": id}), true).await
}

/// Polls `tasks/get` until the task leaves `working` (bounded).
async fn settled(port: u16, id: &str) -> Value {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let task = result(&get(port, id).await).clone();
        if task["status"] != "working" {
            return task;
        }
        assert!(
            Instant::now() < deadline,
            "task {id} is still working: {task}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The checks every task object gets: "ISO 8601 timestamp" `createdAt` and
/// `lastUpdatedAt`, "`ttlMs`: number | null", "`pollIntervalMs`?: number".
fn check_task_fields(task: &Value) {
    for key in ["createdAt", "lastUpdatedAt"] {
        let stamp = task[key]
            .as_str()
            .unwrap_or_else(|| panic!("{key}: {task}"));
        assert!(
            stamp.len() == 24 && stamp.ends_with('Z') && &stamp[10..11] == "T",
            "{key} is not ISO 8601: {stamp}"
        );
    }
    assert!(task["ttlMs"].is_u64() || task["ttlMs"].is_null(), "{task}");
    assert!(
        task.get("pollIntervalMs").is_none_or(Value::is_u64),
        "{task}"
    );
    assert!(task["taskId"].is_string(), "{task}");
}

fn task_id(created: &Value) -> String {
    created["taskId"].as_str().expect("a taskId").to_owned()
}

#[tokio::test]
async fn a_raw_client_follows_the_extension_text() {
    let server = start("a", "memory", None);
    let port = server.port;

    // "Server to client, in response to server/discover: capabilities.extensions
    // io.modelcontextprotocol/tasks: {}" — "an empty object indicates support".
    let discover = rpc(port, "server/discover", "", json!({}), true).await;
    assert_eq!(
        result(&discover)["capabilities"]["extensions"][TASKS],
        json!({}),
        "{discover}"
    );
    // 2025-11-25's `execution.taskSupport` is not advertised: rmcp 3.11 implements the
    // extension only, and a legacy client told `optional` would send the `task` param
    // and wait for `tasks/result`, which this server does not serve.
    let listed = result(&rpc(port, "tools/list", "", json!({}), true).await).clone();
    for tool in listed["tools"].as_array().expect("tools") {
        assert!(tool.get("execution").is_none(), "{tool}");
    }

    // "Servers MUST set resultType to "task" when returning a CreateTaskResult", and
    // "CreateTaskResult does not contain result/error/inputRequests".
    let created = call(port, "build", json!({"ms": 200}), true).await;
    assert_eq!(created["resultType"], "task", "{created}");
    assert_eq!(created["status"], "working", "{created}");
    check_task_fields(&created);
    assert!(created["pollIntervalMs"].is_u64(), "{created}");
    for absent in ["result", "error", "inputRequests", "content"] {
        assert!(created.get(absent).is_none(), "{absent} in {created}");
    }
    let id = task_id(&created);
    // "A server MUST NOT return CreateTaskResult until the task is durably created —
    // that is, until a tasks/get for the returned taskId would resolve."
    let first = get(port, &id).await;
    // "The resultType field MUST be set to "complete" on this object."
    assert_eq!(result(&first)["resultType"], "complete", "{first}");
    assert_eq!(result(&first)["taskId"], id.as_str());
    // "completed: … results are available in the result field"; the structure "matches
    // the result type of the original request" (a CallToolResult).
    let done = settled(port, &id).await;
    check_task_fields(&done);
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["content"][0]["text"], "built in 200 ms by a");
    assert_eq!(done["result"]["isError"], false, "{done}");

    // "A server MUST NOT return CreateTaskResult to a client that did not include the
    // extension capability on its request, regardless of prior declarations."
    let plain = call(port, "build", json!({"ms": 1}), false).await;
    assert_ne!(plain["resultType"], "task", "{plain}");
    assert_eq!(plain["content"][0]["text"], "built in 1 ms by a", "{plain}");
    // The server is "the sole decider … on a per-request basis": a quick tool stays plain.
    let echo = call(port, "echo", json!({"text": "hi"}), true).await;
    assert_eq!(echo["content"][0]["text"], "hi", "{echo}");
    assert!(echo.get("taskId").is_none(), "{echo}");
    // tasks/* from a request without the extension: Missing Required Client Capability,
    // naming the extension in `data.requiredCapabilities`.
    let refused = rpc(port, "tasks/get", &id, json!({"taskId": id}), false).await;
    assert_eq!(
        refused["error"]["data"]["requiredCapabilities"]["extensions"][TASKS],
        json!({}),
        "{refused}"
    );

    // Untrusted ids: "Servers SHOULD return a JSON-RPC error if the taskId does not
    // correspond to a known task" — for get, update and cancel alike.
    let unknown = "0b6e3f0c-5a4e-4c1e-9d7a-000000000000";
    for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
        let params = json!({"taskId": unknown, "inputResponses": {}});
        let error = rpc(port, method, unknown, params, true).await;
        assert_eq!(error["error"]["code"], -32602, "{method}: {error}");
        assert_eq!(error["error"]["data"]["reason"], "unknown_task", "{error}");
    }
    for bad in ["../../etc/passwd", "", &"x".repeat(5000), "' OR 1=1 --"] {
        let error = get(port, bad).await;
        assert_eq!(error["error"]["code"], -32602, "{error}");
        assert_eq!(
            error["error"]["data"]["reason"], "invalid_task_id",
            "{error}"
        );
    }

    // Mid-task input: "input_required: … the tasks/get response will include outstanding
    // requests in the inputRequests field", answered "via the inputResponses field in
    // subsequent tasks/update requests".
    let deploy = task_id(&call(port, "deploy", json!({}), true).await);
    let waiting = settled(port, &deploy).await;
    assert_eq!(waiting["status"], "input_required", "{waiting}");
    check_task_fields(&waiting);
    let requests = waiting["inputRequests"].as_object().expect("inputRequests");
    assert_eq!(requests.len(), 1, "{waiting}");
    let (key, request) = requests.iter().next().expect("one request");
    assert_eq!(request["method"], "elicitation/create", "{request}");
    assert_eq!(request["params"]["message"], "Which environment?");
    assert_eq!(request["params"]["requestedSchema"]["type"], "object");
    // The same snapshot on the next poll: the key is stable while outstanding.
    let again = result(&get(port, &deploy).await).clone();
    assert!(again["inputRequests"].get(key).is_some(), "{again}");
    // "A server SHOULD ignore any inputResponses responses mapped to a key that is not
    // currently outstanding": an unknown key is acknowledged and changes nothing.
    let stray = json!({"taskId": deploy, "inputResponses": {"never-issued": {"action": "accept"}}});
    let ack = rpc(port, "tasks/update", &deploy, stray, true).await;
    assert_eq!(result(&ack), &json!({"resultType": "complete"}), "{ack}");
    assert_eq!(
        result(&get(port, &deploy).await)["status"],
        "input_required"
    );
    // "On success, the server MUST acknowledge the request with an empty result" whose
    // "resultType field MUST be set to "complete"".
    let answer = json!({"taskId": deploy, "inputResponses": {
        key.as_str(): {"action": "accept", "content": {"answer": "prod"}}}});
    let ack = rpc(port, "tasks/update", &deploy, answer, true).await;
    assert_eq!(result(&ack), &json!({"resultType": "complete"}), "{ack}");
    let deployed = settled(port, &deploy).await;
    assert_eq!(deployed["status"], "completed", "{deployed}");
    assert_eq!(
        deployed["result"]["content"][0]["text"],
        "deployed to prod by a"
    );

    // Cancellation: "The server MUST acknowledge the request with an empty result"; the
    // tool's cancellation token is tripped and the task ends `cancelled`.
    let hang = task_id(&call(port, "hang", json!({}), true).await);
    assert_eq!(result(&get(port, &hang).await)["status"], "working");
    let ack = rpc(port, "tasks/cancel", &hang, json!({"taskId": hang}), true).await;
    assert_eq!(result(&ack), &json!({"resultType": "complete"}), "{ack}");
    let cancelled = settled(port, &hang).await;
    assert_eq!(cancelled["status"], "cancelled", "{cancelled}");
    for absent in ["result", "error", "inputRequests"] {
        assert!(cancelled.get(absent).is_none(), "{absent} in {cancelled}");
    }
    // A task waiting for input is cancelled at once; an ended task stays as it ended.
    let waiting = task_id(&call(port, "deploy", json!({}), true).await);
    assert_eq!(settled(port, &waiting).await["status"], "input_required");
    let ack = rpc(
        port,
        "tasks/cancel",
        &waiting,
        json!({"taskId": waiting}),
        true,
    )
    .await;
    result(&ack);
    assert_eq!(result(&get(port, &waiting).await)["status"], "cancelled");
    let ack = rpc(port, "tasks/cancel", &id, json!({"taskId": id}), true).await;
    result(&ack);
    assert_eq!(result(&get(port, &id).await)["status"], "completed");
}

/// A fresh directory for one test's database and nginx files.
fn scratch(test: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("toolnexus-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

#[tokio::test]
async fn a_server_killed_and_restarted_keeps_its_tasks() {
    let dir = scratch("tasks-restart");
    let file = dir.join("tasks.db");
    restart_keeps_tasks(file.to_str().expect("a UTF-8 path")).await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// The same on PostgreSQL (the server the store tests start).
#[tokio::test]
async fn a_server_killed_and_restarted_keeps_its_tasks_on_postgres() {
    let url = postgres::server().database("toolnexus_tasks_restart");
    restart_keeps_tasks(&url).await;
}

async fn restart_keeps_tasks(file: &str) {
    let first = start("first", file, Some(600));
    let done = task_id(&call(first.port, "build", json!({"ms": 1}), true).await);
    assert_eq!(settled(first.port, &done).await["status"], "completed");
    let waiting = task_id(&call(first.port, "deploy", json!({}), true).await);
    let asked = settled(first.port, &waiting).await;
    assert_eq!(asked["status"], "input_required", "{asked}");
    let running = task_id(&call(first.port, "hang", json!({}), true).await);
    assert_eq!(
        result(&get(first.port, &running).await)["status"],
        "working"
    );
    drop(first); // SIGKILL

    let second = start("second", file, Some(600));
    // An ended task keeps its result.
    let kept = result(&get(second.port, &done).await).clone();
    assert_eq!(kept["status"], "completed", "{kept}");
    assert_eq!(
        kept["result"]["content"][0]["text"],
        "built in 1 ms by first"
    );
    // A waiting task still waits, with the same request, and runs on here when answered.
    let still = result(&get(second.port, &waiting).await).clone();
    assert_eq!(still["inputRequests"], asked["inputRequests"], "{still}");
    let key = asked["inputRequests"]
        .as_object()
        .and_then(|requests| requests.keys().next().cloned())
        .expect("a key");
    let answer = json!({"taskId": waiting, "inputResponses": {
        key: {"action": "accept", "content": {"answer": "staging"}}}});
    result(&rpc(second.port, "tasks/update", &waiting, answer, true).await);
    let deployed = settled(second.port, &waiting).await;
    assert_eq!(
        deployed["result"]["content"][0]["text"], "deployed to staging by second",
        "{deployed}"
    );
    // The task that was running when the server died is reported failed once its lease
    // lapses, saying why: it is not started again behind the client's back.
    let failed = settled(second.port, &running).await;
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(failed["error"]["code"], -32603, "{failed}");
    let why = failed["error"]["message"].as_str().expect("a message");
    assert!(why.contains("stopped (a restart or a crash)"), "{why}");
    assert_eq!(failed["statusMessage"], why);
}

#[tokio::test]
async fn a_task_started_on_one_replica_is_followed_on_the_other() {
    let dir = scratch("tasks-lb");
    let file = dir.join("tasks.db");
    let file = file.to_str().expect("a UTF-8 path");
    let (a, b) = (start("a", file, Some(300)), start("b", file, Some(300)));
    let port = free_port();
    let lb = Server {
        child: start_nginx(&dir, port, &[a.port, b.port]),
        port,
    };

    // Started on a, read on b until it ends there: b answers from the shared rows.
    let built = task_id(&call(a.port, "build", json!({"ms": 300}), true).await);
    let done = settled(b.port, &built).await;
    assert_eq!(done["result"]["content"][0]["text"], "built in 300 ms by a");

    // Through the balancer (round robin: consecutive requests alternate replicas).
    let deploy = task_id(&call(lb.port, "deploy", json!({}), true).await);
    let asked = settled(lb.port, &deploy).await;
    for replica in [a.port, b.port, lb.port, lb.port] {
        let seen = result(&get(replica, &deploy).await).clone();
        assert_eq!(seen["inputRequests"], asked["inputRequests"], "{seen}");
    }
    let key = asked["inputRequests"]
        .as_object()
        .and_then(|requests| requests.keys().next().cloned())
        .expect("a key");
    let answer = json!({"taskId": deploy, "inputResponses": {
        key: {"action": "accept", "content": {"answer": "prod"}}}});
    result(&rpc(lb.port, "tasks/update", &deploy, answer.clone(), true).await);
    let deployed = settled(lb.port, &deploy).await;
    let text = deployed["result"]["content"][0]["text"]
        .as_str()
        .expect("text");
    assert!(
        text == "deployed to prod by a" || text == "deployed to prod by b",
        "{deployed}"
    );
    // The same answer again, on either replica, is ignored: the tool ran once.
    result(&rpc(a.port, "tasks/update", &deploy, answer.clone(), true).await);
    result(&rpc(b.port, "tasks/update", &deploy, answer, true).await);
    assert_eq!(
        result(&get(lb.port, &deploy).await)["result"],
        deployed["result"]
    );

    // Cancelled through b while it runs on a: a's runner reads the flag at its next
    // lease renewal and trips the tool's token.
    let hang = task_id(&call(a.port, "hang", json!({}), true).await);
    result(&rpc(b.port, "tasks/cancel", &hang, json!({"taskId": hang}), true).await);
    let cancelled = settled(lb.port, &hang).await;
    assert_eq!(cancelled["status"], "cancelled", "{cancelled}");
    drop((lb, a, b));
    let _ = std::fs::remove_dir_all(&dir);
}

#[path = "tasks/rmcp_client.rs"]
mod rmcp_client;

/// The official Python SDK 2.3, which has no task support of its own, through its
/// client-extension hook (`tests/tasks/client.py`): the extension declared on every
/// request, the `resultType: "task"` result claimed and followed to its end.
#[tokio::test]
async fn the_python_sdk_s_extension_hook_follows_tasks() {
    let server = start("py", "memory", None);
    let python = std::env::var("TOOLNEXUS_PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tasks/client.py");
    let url = format!("http://127.0.0.1:{}/mcp", server.port);
    let run = tokio::process::Command::new(&python)
        .arg(&script)
        .arg(&url)
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(PATIENCE, run)
        .await
        .expect("the Python client finishes in time")
        .unwrap_or_else(|e| panic!("{python} does not run ({e}): .ci/test installs mcp==2.3.0"));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the Python client failed: {stderr}"
    );
    let report: Value = serde_json::from_slice(&output.stdout).expect("a JSON report");
    let results = &report["results"];
    assert_eq!(results["build"]["text"], "built in 50 ms by py", "{report}");
    assert_eq!(
        results["deploy"]["text"], "deployed to prod by py",
        "{report}"
    );
    assert_eq!(results["hang"]["text"], "cancelled", "{report}");
    assert_eq!(results["echo"]["text"], "hi", "{report}");
    // Three task tools became tasks; `echo` did not.
    let tasks = report["tasks"].as_array().expect("tasks");
    let tools: Vec<&str> = tasks.iter().filter_map(|t| t["tool"].as_str()).collect();
    assert_eq!(tools, ["build", "deploy", "hang"], "{report}");
    assert_eq!(tasks[1]["asked"], "Which environment?", "{report}");
    assert_eq!(
        tasks[1]["statuses"].as_array().and_then(|s| s.last()),
        Some(&json!("completed"))
    );
    assert_eq!(
        tasks[2]["statuses"].as_array().and_then(|s| s.last()),
        Some(&json!("cancelled"))
    );
}
