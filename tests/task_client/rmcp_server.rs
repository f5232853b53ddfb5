//! A plain rmcp 3.11 server (nothing of toolnexus) with its own support for the tasks
//! extension (`io.modelcontextprotocol/tasks`, SEP-2663), for the `McpClient` task tests
//! (`tests/mcp_client_tasks.rs`):
//!
//! ```text
//! cargo run -p toolnexus-suite --example rmcp_task_server -- POLL_MS
//! ```
//!
//! Serves streamable HTTP on an ephemeral 127.0.0.1 port (the first line on stdout is
//! `listening on URL`) until stdin closes. Every tool but `journal` answers a client that
//! declares the extension with a task (`pollIntervalMs` = POLL_MS):
//!
//! - `build {ms}`: completes after `ms` with `built in MSms`;
//! - `explode`: fails with JSON-RPC error -32603 `the disk is full`;
//! - `forever`: runs until `tasks/cancel`;
//! - `deploy`: asks `input_required` for `{env}`, then completes with `deployed to ENV`
//!   (or `deploy declined` when the answer declines);
//! - `crash`: the process exits 300 ms after the task is made.
//!
//! `journal` (no task) lists, one per line, what the server was asked: `call NAME -> ID`,
//! `update ID KEY=ACTION`, `cancel ID` (`tasks/get` is counted as `gets N`).

use std::collections::HashMap;
use std::io::Read as _;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, ContentBlock,
    CreateTaskResult, DetailedTask, ElicitRequest, ElicitRequestParams, ElicitationSchema,
    ErrorData, GetTaskParams, GetTaskResult, Implementation, InputRequest, InputRequests,
    JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Task,
    TaskPayload, TaskStatus, Tool, UpdateTaskParams,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{RoleServer, ServerHandler};
use serde_json::{Value, json};

#[derive(Default)]
struct Tasks {
    by_id: Mutex<HashMap<String, TaskPayload>>,
    journal: Mutex<Vec<String>>,
    gets: AtomicUsize,
    next: AtomicUsize,
}

impl Tasks {
    fn set(&self, id: &str, payload: TaskPayload) {
        let mut tasks = self.by_id.lock().unwrap();
        // An ended task stays ended (a cancel does not undo a result).
        if let Some(old) = tasks.get(id)
            && old.status().is_terminal()
        {
            return;
        }
        tasks.insert(id.to_owned(), payload);
    }

    fn note(&self, line: String) {
        self.journal.lock().unwrap().push(line);
    }
}

#[derive(Clone)]
struct Server {
    tasks: Arc<Tasks>,
    poll_ms: u64,
}

fn text(text: impl Into<String>) -> JsonObject {
    let result = CallToolResult::success(vec![ContentBlock::text(text.into())]);
    match serde_json::to_value(result) {
        Ok(Value::Object(map)) => map,
        _ => JsonObject::new(),
    }
}

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

fn env_question() -> InputRequests {
    let schema = ElicitationSchema::builder()
        .required_string("env")
        .build()
        .unwrap_or_else(|_| unreachable!("a one-field schema builds"));
    let mut requests = InputRequests::new();
    requests.insert(
        "env-1".to_owned(),
        InputRequest::Elicitation(ElicitRequest::new(
            ElicitRequestParams::FormElicitationParams {
                meta: None,
                message: "Which environment?".to_owned(),
                requested_schema: schema,
            },
        )),
    );
    requests
}

fn now() -> String {
    "2026-12-01T00:00:00Z".to_owned()
}

impl Server {
    fn task(&self, id: &str, status: TaskStatus) -> Task {
        Task::new(id, status, now(), now()).with_poll_interval_ms(self.poll_ms)
    }

    fn start(&self, name: &str, args: &JsonObject) -> Result<String, ErrorData> {
        let id = format!(
            "task-{}",
            self.tasks.next.fetch_add(1, Ordering::Relaxed) + 1
        );
        let tasks = Arc::clone(&self.tasks);
        match name {
            "build" => {
                let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(200);
                let done = id.clone();
                tokio::spawn(async move {
                    tokio::time::sleep(Duration::from_millis(ms)).await;
                    let result = text(format!("built in {ms}ms"));
                    tasks.set(&done, TaskPayload::Completed { result });
                });
                self.tasks.set(&id, TaskPayload::Working);
            }
            "explode" => self.tasks.set(
                &id,
                TaskPayload::Failed {
                    error: object(json!({"code": -32603, "message": "the disk is full"})),
                },
            ),
            "forever" => self.tasks.set(&id, TaskPayload::Working),
            "deploy" => self.tasks.set(
                &id,
                TaskPayload::InputRequired {
                    input_requests: env_question(),
                },
            ),
            "crash" => {
                self.tasks.set(&id, TaskPayload::Working);
                tokio::spawn(async {
                    tokio::time::sleep(Duration::from_millis(300)).await;
                    std::process::exit(3);
                });
            }
            other => {
                return Err(ErrorData::invalid_params(
                    format!("no tool named {other}"),
                    None,
                ));
            }
        }
        self.tasks.note(format!("call {name} -> {id}"));
        Ok(id)
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tasks()
            .build();
        let mut info = ServerConfig::new(capabilities);
        info.server_info = Implementation::new("rmcp-tasks", "1.0.0");
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let schema = |properties: Value| {
            Arc::new(object(json!({"type": "object", "properties": properties})))
        };
        let tool = |name: &'static str, description: &'static str| {
            Tool::new(name, description, schema(json!({})))
        };
        Ok(ListToolsResult::with_all_items(vec![
            Tool::new(
                "build",
                "Builds, slowly.",
                schema(json!({"ms": {"type": "integer"}})),
            ),
            tool("explode", "Fails."),
            tool("forever", "Never ends."),
            tool("deploy", "Asks where, then deploys."),
            tool("crash", "Takes the server down."),
            tool("journal", "What the server was asked."),
        ]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name == "journal" {
            let mut lines = self.tasks.journal.lock().unwrap().clone();
            lines.push(format!("gets {}", self.tasks.gets.load(Ordering::Relaxed)));
            let result = CallToolResult::success(vec![ContentBlock::text(lines.join("\n"))]);
            return Ok(CallToolResponse::Complete(result));
        }
        if !context
            .client_capabilities()
            .is_some_and(|caps| caps.supports_tasks())
        {
            let result = CallToolResult::error(vec![ContentBlock::text(
                "this server runs its tools as tasks only",
            )]);
            return Ok(CallToolResponse::Complete(result));
        }
        let args = request.arguments.unwrap_or_default();
        let id = self.start(&request.name, &args)?;
        Ok(CallToolResponse::Task(CreateTaskResult::new(
            self.task(&id, TaskStatus::Working),
        )))
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        self.tasks.gets.fetch_add(1, Ordering::Relaxed);
        let payload = self
            .tasks
            .by_id
            .lock()
            .unwrap()
            .get(&request.task_id)
            .cloned();
        match payload {
            Some(payload) => {
                let task = self.task(&request.task_id, payload.status());
                Ok(GetTaskResult::new(DetailedTask::new(task, payload)))
            }
            None => Err(ErrorData::invalid_params(
                format!("no task {}", request.task_id),
                None,
            )),
        }
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let id = request.task_id;
        let Some(answer) = request.input_responses.get("env-1") else {
            return Err(ErrorData::invalid_params("no response to env-1", None));
        };
        let action = answer["action"].as_str().unwrap_or("?").to_owned();
        self.tasks.note(format!("update {id} env-1={action}"));
        let result = match (action.as_str(), answer["content"]["env"].as_str()) {
            ("accept", Some(env)) => text(format!("deployed to {env}")),
            _ => text("deploy declined"),
        };
        let tasks = Arc::clone(&self.tasks);
        // The answer is taken in a little later, as a real worker would.
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            tasks.set(&id, TaskPayload::Completed { result });
        });
        Ok(())
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tasks.note(format!("cancel {}", request.task_id));
        self.tasks.set(&request.task_id, TaskPayload::Cancelled);
        Ok(())
    }
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let poll_ms = std::env::args()
        .nth(1)
        .and_then(|ms| ms.parse().ok())
        .unwrap_or(50);
    let server = Server {
        tasks: Arc::new(Tasks::default()),
        poll_ms,
    };
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let app = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    println!("listening on http://{}/mcp", listener.local_addr()?);
    std::thread::spawn(|| {
        let _ = std::io::stdin().read_to_end(&mut Vec::new());
        std::process::exit(0);
    });
    axum::serve(listener, app).await
}
