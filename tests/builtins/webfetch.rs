//! `webfetch` against a local axum server on 127.0.0.1: HTML to markdown and to text,
//! other bodies as they are, the body cap, HTTP errors, timeouts and refused URLs; the
//! formats the Python port gives the same way (`html`, other bodies, `HTTP <status>`)
//! side by side with it.

use std::time::Duration;

use axum::Router;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;
use serde_json::{Value, json};
use toolnexus::builtins::Builtins;
use toolnexus::{Context, ToolResult, Toolkit};

use crate::fixture::python_port;

/// The test server's address, allowed explicitly: webfetch refuses loopback by default.
pub const LOOPBACK: std::net::IpAddr = std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST);

const PAGE: &str = "<!doctype html><html><head><title>The title</title><style>body { color: red }</style>\
<script>var hidden = 1;</script></head><body><h1>Heading</h1>\
<p>Hello <b>world</b> &amp; <a href=\"https://example.com/x\">a link</a>.</p>\
<ul><li>one</li><li>two</li></ul></body></html>";

/// The server, on a port of its own; stopped when the test's runtime ends.
pub async fn serve() -> String {
    let app = Router::new()
        .route(
            "/page",
            get(|| async { ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], PAGE) }),
        )
        .route(
            "/plain",
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "text/plain")],
                    "plain <not a tag> text",
                )
            }),
        )
        .route(
            "/json",
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "application/json")],
                    r#"{"a":[1,2]}"#,
                )
            }),
        )
        .route(
            "/missing",
            get(|| async { (StatusCode::NOT_FOUND, "no such page").into_response() }),
        )
        .route(
            "/big",
            get(|| async { ([(header::CONTENT_TYPE, "text/plain")], "x".repeat(200_000)) }),
        )
        .route(
            "/slow",
            get(|| async {
                tokio::time::sleep(Duration::from_secs(10)).await;
                "late"
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let address = listener.local_addr().expect("an address");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    format!("http://{address}")
}

async fn fetch(toolkit: &Toolkit, args: Value) -> ToolResult {
    toolkit.execute("webfetch", args, Context::default()).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webfetch_converts_caps_and_reports_errors() {
    let base = serve().await;
    // The server is on loopback, which webfetch refuses unless the app allows it.
    let toolkit =
        Toolkit::new().with_builtins(Builtins::all().fetch_limit(1000).allow_address(LOOPBACK));

    let markdown = fetch(&toolkit, json!({"url": format!("{base}/page")})).await;
    assert!(!markdown.is_error, "{}", markdown.output);
    assert_eq!(
        markdown.output,
        "# Heading\n\nHello **world** & [a link](https://example.com/x).\n\n*   one\n*   two"
    );
    assert_eq!(markdown.metadata.as_ref().unwrap()["format"], "markdown");

    let text = fetch(
        &toolkit,
        json!({"url": format!("{base}/page"), "format": "text"}),
    )
    .await;
    assert!(
        text.output.contains("Hello world & a link") && !text.output.contains('<'),
        "{}",
        text.output
    );
    assert!(
        !text.output.contains("hidden") && !text.output.contains("color"),
        "{}",
        text.output
    );

    let html = fetch(
        &toolkit,
        json!({"url": format!("{base}/page"), "format": "html"}),
    )
    .await;
    assert_eq!(html.output, PAGE);

    // A body that is not HTML is given as it is, in every format.
    let plain = fetch(&toolkit, json!({"url": format!("{base}/plain")})).await;
    assert_eq!(plain.output, "plain <not a tag> text");
    let data = fetch(
        &toolkit,
        json!({"url": format!("{base}/json"), "format": "text"}),
    )
    .await;
    assert_eq!(data.output, r#"{"a":[1,2]}"#);

    // The cap: 1000 bytes kept, and the output says the rest was cut.
    let big = fetch(&toolkit, json!({"url": format!("{base}/big")})).await;
    assert!(!big.is_error);
    assert!(big.output.starts_with(&"x".repeat(1000)));
    assert!(
        big.output
            .ends_with("[truncated: the response is longer than 1000 bytes]"),
        "{}",
        &big.output[1000..]
    );
    assert_eq!(big.metadata.as_ref().unwrap()["truncated"], true);

    let missing = fetch(&toolkit, json!({"url": format!("{base}/missing")})).await;
    assert!(missing.is_error);
    assert_eq!(missing.output, "HTTP 404");
    assert_eq!(missing.metadata.as_ref().unwrap()["status"], 404);

    let slow = fetch(
        &toolkit,
        json!({"url": format!("{base}/slow"), "timeout": 0.3}),
    )
    .await;
    assert!(slow.is_error);
    assert_eq!(slow.output, "webfetch: timed out after 0.3s");

    let refused = fetch(&toolkit, json!({"url": "file:///etc/passwd"})).await;
    assert_eq!(
        refused.output,
        "webfetch: file:///etc/passwd is not an http:// or https:// URL"
    );

    // A port nothing listens on.
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap()
    };
    let down = fetch(&toolkit, json!({"url": format!("http://{closed}/")})).await;
    assert!(
        down.is_error && down.output.starts_with("webfetch: "),
        "{}",
        down.output
    );

    let none = fetch(&toolkit, json!({})).await;
    assert_eq!(none.output, "webfetch: url is required");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webfetch_agrees_with_the_python_port_where_it_converts_nothing() {
    let base = serve().await;
    let toolkit = Toolkit::new().with_builtins(Builtins::all().allow_address(LOOPBACK));
    let calls = [
        json!({"url": format!("{base}/page"), "format": "html"}),
        json!({"url": format!("{base}/plain"), "format": "html"}),
        json!({"url": format!("{base}/missing")}),
    ];
    let commands: Vec<Value> = calls
        .iter()
        .map(|args| json!({"op": "call", "tool": "webfetch", "args": args}))
        .collect();
    let python = tokio::task::spawn_blocking(move || python_port(&json!({}), &commands))
        .await
        .expect("the Python port");
    for (args, py) in calls.iter().zip(python) {
        let rs = serde_json::to_value(fetch(&toolkit, args.clone()).await).unwrap();
        assert_eq!(
            serde_json::to_string(&py).unwrap(),
            serde_json::to_string(&rs).unwrap(),
            "{args}"
        );
    }
}
