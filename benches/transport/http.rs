//! Streamable HTTP under `wrk`: every server answers `tools/call add(2, 3)` with a JSON
//! (stateless) or event-stream (stateful) response, every response is checked, rounds
//! are interleaved, and the medians of the rounds are compared with bare rmcp's.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

const VERSION: &str = "2025-11-25";

struct Server {
    name: String,
    /// The rmcp row this one is compared with (itself for rmcp's rows).
    baseline: usize,
    child: Child,
    url: String,
    session: Option<String>,
    runs: Vec<Run>,
    single: Vec<Run>,
}

#[derive(Clone, Copy, Default)]
struct Run {
    rps: f64,
    p50: f64,
    p99: f64,
    max: f64,
    cpu_per_request: f64,
}

/// Starts a server child and reads its `listening on URL` line.
fn start(mut command: Command) -> Option<(Child, String)> {
    command.stdin(Stdio::piped()).stdout(Stdio::piped());
    let mut child = command.spawn().ok()?;
    let mut out = BufReader::new(child.stdout.take()?);
    let mut line = String::new();
    out.read_line(&mut line).ok()?;
    let url = line.trim().strip_prefix("listening on ")?.to_owned();
    std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
    Some((child, url))
}

/// One raw HTTP POST, `Connection: close`: the whole response text.
fn post(url: &str, session: Option<&str>, body: &str) -> String {
    let authority = url
        .strip_prefix("http://")
        .and_then(|rest| rest.split('/').next())
        .expect("an http URL");
    let mut stream = TcpStream::connect(authority).expect("connects");
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: {VERSION}\r\n\
         Connection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    if let Some(id) = session {
        request.push_str(&format!("Mcp-Session-Id: {id}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).expect("written");
    let mut response = String::new();
    let _ = stream.read_to_string(&mut response);
    response
}

/// `initialize` and `notifications/initialized`: the session id.
fn open_session(url: &str) -> String {
    let init = format!(
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{VERSION}","capabilities":{{}},"clientInfo":{{"name":"wrk","version":"1"}}}}}}"#
    );
    let response = post(url, None, &init);
    let session = response
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("mcp-session-id")
                .then(|| value.trim().to_owned())
        })
        .unwrap_or_else(|| panic!("no session id in: {response}"));
    post(
        url,
        Some(&session),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    session
}

fn script(dir: &std::path::Path, session: Option<&str>) -> std::path::PathBuf {
    let session = session
        .map(|id| format!("wrk.headers[\"Mcp-Session-Id\"] = \"{id}\"\n"))
        .unwrap_or_default();
    let text = format!(
        r#"wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "{VERSION}"
{session}
local threads = {{}}
function setup(thread) table.insert(threads, thread) end
counter = 0
good = 0
bad = 0
first_bad = ""
function request()
  counter = counter + 1
  return wrk.format(nil, nil, nil, '{{"jsonrpc":"2.0","id":' .. counter .. ',"method":"tools/call","params":{{"name":"add","arguments":{{"a":2,"b":3}}}}}}')
end
function response(status, headers, body)
  if status == 200 and string.find(body, '"text":"5"', 1, true) then
    good = good + 1
  else
    bad = bad + 1
    if bad == 1 then first_bad = status .. " " .. string.sub(body, 1, 200) end
  end
end
function done(summary, latency, requests)
  local g, b, first = 0, 0, ""
  for _, t in ipairs(threads) do
    g = g + t:get("good")
    b = b + t:get("bad")
    if first == "" then first = t:get("first_bad") end
  end
  local e = summary.errors
  io.write(string.format("RESULT %d %d %d %d %f %f %f\n", summary.duration, g, b,
    e.connect + e.read + e.write + e.status + e.timeout,
    latency:percentile(50), latency:percentile(99), latency.max))
  if first ~= "" then io.write("FIRST_BAD " .. first .. "\n") end
end
"#
    );
    let path = dir.join(format!("toolnexus-transport-{}.lua", std::process::id()));
    std::fs::write(&path, text).expect("script written");
    path
}

/// One wrk run; panics when a response was wrong.
fn wrk(server: &Server, dir: &std::path::Path, connections: usize, secs: usize) -> Run {
    let script = script(dir, server.session.as_deref());
    let pid = server.child.id().to_string();
    let cpu = crate::cpu_ns(&pid);
    let mut command = if crate::has("taskset") {
        let mut command = Command::new("taskset");
        command.args(["-c", "0", "wrk"]);
        command
    } else {
        Command::new("wrk")
    };
    let output = command
        .args(["-t1", &format!("-c{connections}"), &format!("-d{secs}s")])
        .arg("-s")
        .arg(&script)
        .arg(&server.url)
        .output()
        .expect("wrk runs");
    let cpu = crate::cpu_ns(&pid) - cpu;
    let text = String::from_utf8_lossy(&output.stdout);
    let fields: Vec<f64> = text
        .lines()
        .find_map(|line| line.strip_prefix("RESULT "))
        .unwrap_or_else(|| panic!("wrk printed no result: {text}"))
        .split_whitespace()
        .map(|field| field.parse().expect("a number"))
        .collect();
    let [duration, good, bad, errors, p50, p99, max] = fields[..] else {
        panic!("wrk result: {text}")
    };
    assert!(
        bad == 0.0 && errors == 0.0 && good > 0.0,
        "{}: {bad} wrong responses, {errors} socket errors: {text}",
        server.name
    );
    Run {
        rps: good / (duration / 1e6),
        p50: p50 / 1000.0,
        p99: p99 / 1000.0,
        max: max / 1000.0,
        cpu_per_request: cpu as f64 / good / 1000.0,
    }
}

fn median(runs: &[Run], field: impl Fn(&Run) -> f64) -> f64 {
    crate::median_of(runs.iter().map(field).collect())
}

fn optional_servers() -> Vec<(String, Command)> {
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/transport");
    let mut servers = Vec::new();
    if let Ok(python) = std::env::var("TRANSPORT_PY") {
        let mut command = Command::new("taskset");
        command
            .args(["-c", "1"])
            .arg(python)
            .arg(here.join("sdk_server.py"));
        servers.push(("Python SDK 2.3 (uvicorn), stateless".to_owned(), command));
    }
    if let Ok(modules) = std::env::var("TRANSPORT_NODE_MODULES") {
        let mut command = Command::new("taskset");
        command
            .args(["-c", "1", "node"])
            .arg(here.join("sdk_server.mjs"));
        command.env("NODE_PATH", modules);
        servers.push((
            "TypeScript SDK 1.32 (express), stateless".to_owned(),
            command,
        ));
    }
    servers
}

pub fn run() {
    if !crate::has("wrk") {
        println!("\nhttp: wrk is not installed (apt-get install -y wrk): skipped");
        return;
    }
    let rounds = crate::env_usize("TRANSPORT_ROUNDS", 4);
    let secs = crate::env_usize("TRANSPORT_SECS", 10);
    let dir = std::env::temp_dir();
    let mut specs: Vec<(String, usize, Command)> = vec![
        (
            "rmcp bare, stateless".to_owned(),
            0,
            crate::server_command("rmcp-http-stateless"),
        ),
        (
            "toolnexus, stateless".to_owned(),
            0,
            crate::server_command("toolnexus-http-stateless"),
        ),
        (
            "rmcp bare, stateful".to_owned(),
            2,
            crate::server_command("rmcp-http-stateful"),
        ),
        (
            "toolnexus, stateful".to_owned(),
            2,
            crate::server_command("toolnexus-http-stateful"),
        ),
        (
            "floor: axum + serde_json".to_owned(),
            0,
            crate::server_command("floor-http"),
        ),
    ];
    for (name, command) in optional_servers() {
        specs.push((name, 0, command));
    }
    let mut servers: Vec<Server> = specs
        .into_iter()
        .filter_map(|(name, baseline, command)| {
            let Some((child, url)) = start(command) else {
                println!("{name}: did not start, left out");
                return None;
            };
            let session = name.ends_with("stateful").then(|| open_session(&url));
            Some(Server {
                name,
                baseline,
                child,
                url,
                session,
                runs: Vec::new(),
                single: Vec::new(),
            })
        })
        .collect();
    for round in 0..rounds {
        // Every other round in reverse order, so that each server runs as often just
        // before its baseline as just after it, and a drift of the machine's speed
        // cancels out of the ratios.
        for at in crate::round_order(servers.len(), round) {
            let server = &mut servers[at];
            let run = wrk(server, &dir, 16, secs);
            server.runs.push(run);
            let single = wrk(server, &dir, 1, 3.min(secs));
            server.single.push(single);
            eprintln!(
                "round {round}: {}: {:.0} req/s, p99 {:.2} ms",
                server.name, run.rps, run.p99
            );
        }
    }
    println!(
        "\nhttp: wrk -t1, {rounds} interleaved rounds of {secs} s at 16 connections (and 3 s at \
         1), every other round in reverse order, medians of the rounds; ratios: the median of \
         each round's ratio to the bare rmcp row of the same mode"
    );
    println!(
        "| server | req/s (16 conns) | ratio | p50 | p99 | p99 ratio | max / p50 | CPU per request | p50 at 1 conn |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for server in &servers {
        let (rps, p99) = (
            median(&server.runs, |r| r.rps),
            median(&server.runs, |r| r.p99),
        );
        let base = &servers[server.baseline].runs;
        let paired = |field: fn(&Run) -> f64| {
            let ratios: Vec<f64> = server
                .runs
                .iter()
                .zip(base)
                .map(|(ours, theirs)| field(ours) / field(theirs))
                .collect();
            crate::median_of(ratios)
        };
        let p50 = median(&server.runs, |r| r.p50);
        let worst = server
            .runs
            .iter()
            .map(|r| r.max / r.p50)
            .fold(0.0, f64::max);
        println!(
            "| {} | {rps:.0} | {:.2}x | {p50:.2} ms | {p99:.2} ms | {:.2}x | {worst:.1} | {:.1} µs | {:.3} ms |",
            server.name,
            paired(|r| r.rps),
            paired(|r| r.p99),
            median(&server.runs, |r| r.cpu_per_request),
            median(&server.single, |r| r.p50),
        );
    }
    for mut server in servers {
        drop(server.child.stdin.take());
        let _ = server.child.kill();
        let _ = server.child.wait();
    }
}
