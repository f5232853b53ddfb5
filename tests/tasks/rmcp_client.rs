//! rmcp 3.11's own client against the task server (`tests/mcp_tasks.rs`): the one official
//! client that implements the tasks extension.

use super::*;
use toolnexus::mcp::rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientCapabilities, ClientConfig,
    DetailedTask, GetTaskParams, Implementation, InputResponses, ProtocolVersion, TaskPayload,
    UpdateTaskParams,
};
use toolnexus::mcp::rmcp::service::{
    ClientLifecycleMode, RoleClient, RunningService, serve_client_with_lifecycle,
};
use toolnexus::mcp::rmcp::transport::StreamableHttpClientTransport;

type Client = RunningService<RoleClient, ClientConfig>;

async fn connect(port: u16, tasks: bool) -> Client {
    let capabilities = if tasks {
        ClientCapabilities::builder().enable_tasks().build()
    } else {
        ClientCapabilities::default()
    };
    let info = ClientConfig::new(capabilities, Implementation::new("rmcp-judge", "0"));
    let transport = StreamableHttpClientTransport::from_uri(format!("http://127.0.0.1:{port}/mcp"));
    // `server/discover` and per-request `_meta` (2026-07-28), as the stateless server asks.
    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    serve_client_with_lifecycle(info, transport, lifecycle)
        .await
        .expect("rmcp connects")
}

fn params(tool: &str, args: Value) -> CallToolRequestParams {
    CallToolRequestParams::new(tool.to_owned())
        .with_arguments(args.as_object().cloned().unwrap_or_default())
}

async fn started(client: &Client, tool: &str, args: Value) -> String {
    match client
        .call_tool_once(params(tool, args))
        .await
        .expect("tools/call")
    {
        CallToolResponse::Task(created) => created.task.task_id,
        other => panic!("not a task: {other:?}"),
    }
}

async fn until_settled(client: &Client, id: &str) -> DetailedTask {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let got = client
            .get_task(GetTaskParams::new(id.to_owned()))
            .await
            .expect("tasks/get");
        if !matches!(got.task.payload, TaskPayload::Working) {
            return got.task;
        }
        assert!(Instant::now() < deadline, "task {id} is still working");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn rmcp_s_client_follows_tasks_to_their_end() {
    let server = start("a", "memory", None);
    let client = connect(server.port, true).await;

    let id = started(&client, "build", json!({"ms": 50})).await;
    match until_settled(&client, &id).await.payload {
        TaskPayload::Completed { result } => {
            assert_eq!(result["content"][0]["text"], "built in 50 ms by a")
        }
        other => panic!("not completed: {other:?}"),
    }

    let id = started(&client, "deploy", json!({})).await;
    let key = match until_settled(&client, &id).await.payload {
        TaskPayload::InputRequired { input_requests } => {
            input_requests.keys().next().cloned().expect("a request")
        }
        other => panic!("not waiting for input: {other:?}"),
    };
    let mut responses = InputResponses::new();
    responses.insert(
        key,
        json!({"action": "accept", "content": {"answer": "qa"}}),
    );
    client
        .update_task(UpdateTaskParams::new(id.clone(), responses))
        .await
        .expect("tasks/update");
    match until_settled(&client, &id).await.payload {
        TaskPayload::Completed { result } => {
            assert_eq!(result["content"][0]["text"], "deployed to qa by a")
        }
        other => panic!("not completed: {other:?}"),
    }

    let id = started(&client, "hang", json!({})).await;
    client
        .cancel_task(CancelTaskParams::new(id.clone()))
        .await
        .expect("tasks/cancel");
    let ended = until_settled(&client, &id).await;
    assert!(matches!(ended.payload, TaskPayload::Cancelled), "{ended:?}");

    // The same server, a client without the extension: the ordinary call.
    let plain = connect(server.port, false).await;
    match plain
        .call_tool_once(params("build", json!({"ms": 1})))
        .await
        .expect("tools/call")
    {
        CallToolResponse::Complete(result) => {
            assert_eq!(result.is_error, Some(false), "{result:?}")
        }
        other => panic!("a client without the extension got {other:?}"),
    }
    let _ = (client.cancel().await, plain.cancel().await);
}
