//! A deploy agent served on Restate: the object `Agent`, keyed by conversation, whose
//! deploy tool stops for approval (a Restate awakeable: the invocation suspends and holds
//! no worker while it waits). Against a local restate-server:
//!
//! ```text
//! npx @restatedev/restate-server@1.7.12                       # ingress :8080, admin :9070
//! cargo run --example restate --features restate -- --register http://127.0.0.1:9070
//! curl -X POST localhost:8080/Agent/ops-1/run/send -H 'content-type: application/json' \
//!      -d '"Deploy the service"'                              # {"invocationId": …}
//! curl -X POST localhost:8080/Agent/ops-1/pending             # [{"id": "deploy-approval", …}]
//! curl -X POST localhost:8080/Agent/ops-1/answer -H 'content-type: application/json' \
//!      -d '{"id": "deploy-approval", "ok": true}'             # true: the run resumes
//! curl localhost:8080/restate/invocation/<invocationId>/attach   # the RunResult
//! ```
//!
//! The model is a stand-in (`FnModel`) that asks for a deploy, then reports the result.

use serde_json::json;
use toolnexus::model::FnModel;
use toolnexus::restate::{RestateAgent, register};
use toolnexus::{Client, Message, Reply, Request, Tool, ToolResult, Toolkit};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let addr = args
        .iter()
        .position(|a| a == "--listen")
        .and_then(|i| args.get(i + 1))
        .map_or("127.0.0.1:9080", String::as_str)
        .to_owned();
    let model = FnModel::new_sync(|transcript, _| {
        let deployed = transcript
            .iter()
            .rev()
            .take_while(|m| !matches!(m, Message::User { .. }))
            .any(|m| matches!(m, Message::Tool { pending: None, .. }));
        Ok(if deployed {
            Reply::text("The service is deployed.")
        } else {
            Reply::call("d0", "deploy", "{}")
        })
    });
    let deploy = Tool::new_sync(
        "deploy",
        "Deploys the service.",
        json!({"type": "object"}),
        |_, ctx| match ctx.answer() {
            Some(answer) if answer.ok => ToolResult::ok("deployed to production"),
            Some(_) => ToolResult::ok("not deployed: declined"),
            None => ToolResult::pending(
                Request::approval("Deploy to production?").with_id("deploy-approval"),
            ),
        },
    );
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    let uri = format!("http://{}", listener.local_addr()?);
    println!("listening on {uri}");
    let agent = RestateAgent::new(Client::new(model), Toolkit::new().with(deploy));
    let serving = tokio::spawn(agent.serve_on(listener));
    if let Some(admin) = args
        .iter()
        .position(|a| a == "--register")
        .and_then(|i| args.get(i + 1))
    {
        register(admin, &uri).await?;
        println!("registered with {admin}");
    }
    serving.await?;
    Ok(())
}
