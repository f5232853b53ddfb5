//! Sequential `tools/call` round trips over stdio, client (this process, one core) and
//! server (a child, the other core) in two processes; rounds interleaved.

use std::time::Instant;

use rmcp::RoleClient;
use rmcp::model::CallToolRequestParams;
use rmcp::service::{RunningService, ServiceExt as _};
use rmcp::transport::TokioChildProcess;
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use toolnexus::mcp::McpClient;
use toolnexus::{Context, Toolkit};

enum Caller {
    /// `McpClient`, through the remote tool it lists (what an agent calls).
    Toolnexus(Toolkit, #[allow(dead_code)] McpClient),
    Rmcp(RunningService<RoleClient, ()>),
    Floor {
        write: tokio::process::ChildStdin,
        read: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
        _child: tokio::process::Child,
    },
}

struct Row {
    name: &'static str,
    caller: Caller,
    nanos: Vec<u64>,
    cpu: u64,
    calls: u64,
    /// Each round's median round trip (µs) and client CPU per call (ns).
    rounds: Vec<(f64, f64)>,
}

fn tokio_command(mode: &str) -> tokio::process::Command {
    let mut command = tokio::process::Command::from(crate::server_command(mode));
    command.kill_on_drop(true);
    command
}

async fn toolnexus_client(mode: &str) -> Caller {
    let std = crate::server_command(mode);
    let args: Vec<_> = std.get_args().map(ToOwned::to_owned).collect();
    let client = McpClient::stdio(std.get_program(), args)
        .env(crate::peers::SERVE, mode)
        .quiet()
        .connect()
        .await
        .expect("McpClient connects");
    let tools: Toolkit = client
        .tools()
        .await
        .expect("tools/list")
        .into_iter()
        .collect();
    Caller::Toolnexus(tools, client)
}

async fn rmcp_client(mode: &str) -> Caller {
    let transport = TokioChildProcess::new(tokio_command(mode)).expect("spawned");
    Caller::Rmcp(().serve(transport).await.expect("rmcp client connects"))
}

fn floor_client() -> Caller {
    let mut command = tokio_command("floor-stdio");
    command
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    let mut child = command.spawn().expect("spawned");
    let write = child.stdin.take().expect("stdin");
    let read = BufReader::new(child.stdout.take().expect("stdout")).lines();
    Caller::Floor {
        write,
        read,
        _child: child,
    }
}

fn arguments() -> Map<String, Value> {
    let Value::Object(map) = json!({"a": 2, "b": 3}) else {
        unreachable!()
    };
    map
}

impl Caller {
    /// One call, its answer checked.
    async fn call(&mut self, id: u64) {
        match self {
            Caller::Toolnexus(tools, _) => {
                let result = tools
                    .execute("add", json!({"a": 2, "b": 3}), Context::default())
                    .await;
                assert_eq!(result.output.as_str(), "5", "{result:?}");
            }
            Caller::Rmcp(service) => {
                let params = CallToolRequestParams::new("add").with_arguments(arguments());
                let result = service.call_tool(params).await.expect("tools/call");
                let text = result.content[0].as_text().expect("text").text.as_str();
                assert_eq!(text, "5");
            }
            Caller::Floor { write, read, .. } => {
                let line = format!(
                    "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"add\",\"arguments\":{{\"a\":2,\"b\":3}}}}}}\n"
                );
                write.write_all(line.as_bytes()).await.expect("written");
                let answer = read.next_line().await.expect("read").expect("a line");
                assert!(answer.contains("\"text\":\"5\""), "{answer}");
            }
        }
    }
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[at] as f64 / 1000.0
}

pub fn run() {
    let calls = crate::env_usize("TRANSPORT_CALLS", 2000);
    let rounds = crate::env_usize("TRANSPORT_ROUNDS", 4);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let mut rows = rt.block_on(async {
        vec![
            Row::new(
                "McpClient -> McpServer (toolnexus both sides)",
                toolnexus_client("toolnexus-stdio").await,
            ),
            Row::new(
                "rmcp client -> McpServer (toolnexus server)",
                rmcp_client("toolnexus-stdio").await,
            ),
            Row::new(
                "rmcp client -> rmcp server, tokio stdio (baseline)",
                rmcp_client("rmcp-stdio-tokio").await,
            ),
            Row::new(
                "rmcp client -> rmcp server, stdio_pipes",
                rmcp_client("rmcp-stdio-pipes").await,
            ),
            Row::new(
                "McpClient -> rmcp server, stdio_pipes",
                toolnexus_client("rmcp-stdio-pipes").await,
            ),
            Row::new("floor: one JSON line each way over pipes", floor_client()),
        ]
    });
    // `TRANSPORT_STDIO_ROWS=0,2`: only those rows measured (for a profiler).
    let only: Option<Vec<usize>> = std::env::var("TRANSPORT_STDIO_ROWS")
        .ok()
        .map(|list| list.split(',').filter_map(|i| i.parse().ok()).collect());
    let mut id = 1_000;
    for round in 0..rounds {
        // Every other round in reverse order (see the HTTP part).
        for index in crate::round_order(rows.len(), round) {
            let row = &mut rows[index];
            if only.as_ref().is_some_and(|only| !only.contains(&index)) {
                continue;
            }
            rt.block_on(async {
                // A few calls to warm the path, not measured.
                for _ in 0..50 {
                    id += 1;
                    row.caller.call(id).await;
                }
                let cpu = crate::cpu_ns("self");
                let mut round = Vec::with_capacity(calls);
                for _ in 0..calls {
                    id += 1;
                    let start = Instant::now();
                    row.caller.call(id).await;
                    round.push(start.elapsed().as_nanos() as u64);
                }
                let spent = crate::cpu_ns("self") - cpu;
                row.cpu += spent;
                row.calls += calls as u64;
                round.sort_unstable();
                row.rounds
                    .push((percentile(&round, 0.5), spent as f64 / calls as f64));
                row.nanos.extend(round);
            });
        }
    }
    if only.is_some() {
        return;
    }
    for row in &mut rows {
        row.nanos.sort_unstable();
    }
    // Each round's ratio of one row to another, and the median of those.
    let ratios = |ours: usize, theirs: usize, field: fn(&(f64, f64)) -> f64| -> Vec<f64> {
        rows[ours]
            .rounds
            .iter()
            .zip(&rows[theirs].rounds)
            .map(|(a, b)| field(a) / field(b))
            .collect()
    };
    println!(
        "\nstdio: {rounds} interleaved rounds x {calls} sequential tools/call per row, every \
         other round in reverse order; client CPU = this process's CPU time per call; ratios: \
         the median of each round's ratio"
    );
    println!(
        "| client -> server | median round trip | p99 | ratio to rmcp<->rmcp tokio stdio | client CPU per call |"
    );
    println!("|---|---|---|---|---|");
    for (index, row) in rows.iter().enumerate() {
        let median = percentile(&row.nanos, 0.5);
        let cpu = row.cpu as f64 / row.calls as f64 / 1000.0;
        println!(
            "| {} | {median:.1} µs | {:.1} µs | {:.2}x | {cpu:.1} µs |",
            row.name,
            percentile(&row.nanos, 0.99),
            crate::median_of(ratios(index, 2, |r| r.0)),
        );
    }
    // A target's ratio, and the rounds' ratios it is the median of.
    let target = |ratios: Vec<f64>| {
        let each: Vec<String> = ratios.iter().map(|r| format!("{r:.2}")).collect();
        (crate::median_of(ratios), each.join(", "))
    };
    let (cpu, rounds) = target(ratios(0, 1, |r| r.1));
    println!(
        "\nMcpClient CPU per call / bare rmcp client's, same toolnexus server: {cpu:.2}x (target <= 1.1x; rounds: {rounds})"
    );
    let (trip, rounds) = target(ratios(0, 2, |r| r.0));
    println!(
        "McpClient <-> McpServer round trip / rmcp <-> rmcp on tokio stdio: {trip:.2}x (target <= 0.75x; rounds: {rounds})"
    );
    rt.block_on(async {
        for row in rows {
            match row.caller {
                Caller::Toolnexus(_, client) => client.close().await,
                Caller::Rmcp(service) => {
                    let _ = service.cancel().await;
                }
                Caller::Floor { .. } => {}
            }
        }
    });
}

impl Row {
    fn new(name: &'static str, caller: Caller) -> Self {
        Row {
            name,
            caller,
            nanos: Vec::new(),
            cpu: 0,
            calls: 0,
            rounds: Vec::new(),
        }
    }
}
