//! HTTP tools (`toolnexus::source::HttpTool`, the contract's §7 and §0.9) against a real
//! HTTP server: an axum app on 127.0.0.1 in the test's own runtime. Its clock is paused,
//! so the slow answers and the timeouts take no real time and no assertion depends on
//! how long anything takes.

use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::routing::{any, get};
use serde_json::{Value, json};
use toolnexus::source::{BodyMode, HttpTool, ResultMode};
use toolnexus::{Context, Toolkit};

/// Echoes what arrived: method, path and query, the headers that matter, the body.
async fn echo(method: Method, uri: Uri, headers: HeaderMap, body: Bytes) -> String {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned()
    };
    json!({
        "method": method.as_str(),
        "uri": uri.to_string(),
        "authorization": header("authorization"),
        "contentType": header("content-type"),
        "body": String::from_utf8_lossy(&body),
    })
    .to_string()
}

/// Serves the test routes on a free loopback port; the server task ends with the runtime.
async fn server() -> String {
    let app = Router::new()
        .route("/echo/{*rest}", any(echo))
        .route("/echo", any(echo))
        .route(
            "/missing",
            get(|| async { (StatusCode::NOT_FOUND, "no such thing") }),
        )
        .route(
            "/boom",
            get(|| async { (StatusCode::INTERNAL_SERVER_ERROR, "kaboom") }),
        )
        .route(
            "/slow",
            get(|| async {
                tokio::time::sleep(Duration::from_secs(5)).await;
                "finally"
            }),
        )
        .route(
            "/hang",
            get(|| async {
                tokio::time::sleep(Duration::from_secs(3600)).await;
                "too late"
            }),
        )
        .route("/json", get(|| async { "{ \"a\" : [1, 2] }" }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}")
}

fn echoed(output: &str) -> Value {
    serde_json::from_str(output).unwrap_or_else(|e| panic!("{e}: {output}"))
}

#[tokio::test(start_paused = true)]
async fn a_2xx_answer_is_its_body_and_placeholders_are_filled_from_the_arguments() {
    let base = server().await;
    let tool = HttpTool::new("lookup", format!("{base}/echo/users/{{id}}/items"))
        .description("Look a user up.")
        .build()
        .unwrap();
    assert_eq!(tool.source(), "http");
    assert_eq!(tool.description(), "Look a user up.");
    // Without a schema, each placeholder is a required string.
    assert_eq!(
        tool.input_schema(),
        &json!({
            "type": "object",
            "properties": {"id": {"type": "string"}},
            "required": ["id"],
            "additionalProperties": false
        })
    );
    let toolkit = Toolkit::new().with(tool);
    let result = toolkit
        .execute(
            "lookup",
            json!({"id": "a b/c?", "verbose": true, "page": 2, "skip": null}),
            Context::default(),
        )
        .await;
    assert!(!result.is_error, "{}", result.output);
    assert_eq!(result.metadata.as_ref().unwrap()["status"], 200);
    let got = echoed(&result.output);
    assert_eq!(got["method"], "GET");
    // Percent-encoded as encodeURIComponent does; the other arguments go to the query of
    // a GET (nulls left out), the placeholder's argument does not.
    assert_eq!(
        got["uri"],
        "/echo/users/a%20b%2Fc%3F/items?verbose=true&page=2"
    );
}

#[tokio::test(start_paused = true)]
async fn other_statuses_are_error_results_with_the_status_and_the_body() {
    let base = server().await;
    for (path, want) in [
        ("missing", "HTTP 404: no such thing"),
        ("boom", "HTTP 500: kaboom"),
    ] {
        let tool = HttpTool::new(path, format!("{base}/{path}"))
            .build()
            .unwrap();
        let result = tool.execute(json!({}), Context::default()).await;
        assert!(result.is_error, "{path}");
        assert_eq!(result.output, want);
        assert_eq!(
            result.metadata.as_ref().unwrap()["status"],
            want[5..8].parse::<u16>().unwrap()
        );
    }
}

#[tokio::test(start_paused = true)]
async fn a_slow_answer_within_the_timeout_arrives_and_one_past_it_is_an_error() {
    let base = server().await;
    let slow = HttpTool::new("slow", format!("{base}/slow"))
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap();
    let result = slow.execute(json!({}), Context::default()).await;
    assert_eq!(
        (result.output.as_str(), result.is_error),
        ("finally", false)
    );

    let hang = HttpTool::new("hang", format!("{base}/hang"))
        .timeout(Duration::from_secs(2))
        .build()
        .unwrap();
    let result = hang.execute(json!({}), Context::default()).await;
    assert!(result.is_error);
    assert_eq!(
        result.output,
        format!("HTTP tool `hang`: GET {base}/hang: no answer within 2s")
    );

    // The default bound is the contract's 30 seconds; a shorter context timeout wins.
    let default = HttpTool::new("hang", format!("{base}/hang"))
        .build()
        .unwrap();
    let result = default.execute(json!({}), Context::default()).await;
    assert!(
        result.output.ends_with("no answer within 30s"),
        "{}",
        result.output
    );
    let ctx = Context::new().with_timeout(Duration::from_secs(1));
    let result = default.execute(json!({}), ctx).await;
    assert!(result.is_error);
    assert!(!result.output.contains("too late"), "{}", result.output);
}

#[tokio::test(start_paused = true)]
async fn headers_expand_environment_variables_at_each_call_and_never_show_them() {
    let base = server().await;
    // Cargo sets CARGO_PKG_NAME for the tests it runs: a variable that is surely set.
    let secret = std::env::var("CARGO_PKG_NAME").expect("cargo sets CARGO_PKG_NAME");
    let declared = HttpTool::new("authed", format!("{base}/echo"))
        .header("Authorization", "Bearer ${CARGO_PKG_NAME}");
    assert!(!format!("{declared:?}").contains("Bearer"), "{declared:?}");
    let tool = declared.build().unwrap();
    let result = tool.execute(json!({}), Context::default()).await;
    assert_eq!(
        echoed(&result.output)["authorization"],
        format!("Bearer {secret}")
    );

    let unset = HttpTool::new("unset", format!("{base}/echo"))
        .header("X-Key", "${TOOLNEXUS_SURELY_UNSET_VARIABLE}")
        .build()
        .unwrap();
    let result = unset.execute(json!({}), Context::default()).await;
    assert!(result.is_error);
    assert_eq!(
        result.output,
        "HTTP tool `unset`: the header `x-key` uses ${TOOLNEXUS_SURELY_UNSET_VARIABLE}, and \
         the environment variable TOOLNEXUS_SURELY_UNSET_VARIABLE is not set"
    );

    // A failed request's message does not carry the header either.
    let closed = free_port();
    let refused = HttpTool::new("refused", format!("http://127.0.0.1:{closed}/x"))
        .header("Authorization", "Bearer ${CARGO_PKG_NAME}")
        .build()
        .unwrap();
    let result = refused.execute(json!({}), Context::default()).await;
    assert!(result.is_error);
    assert!(
        result.output.contains("could not connect"),
        "{}",
        result.output
    );
    assert!(!result.output.contains(&secret), "{}", result.output);
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap()
}

#[tokio::test(start_paused = true)]
async fn other_methods_send_the_remaining_arguments_as_the_body() {
    let base = server().await;
    let schema = json!({"type": "object", "properties": {"repo": {"type": "string"}}});
    let post = HttpTool::new("post", format!("{base}/echo/{{repo}}"))
        .method("post")
        .query(["dry"])
        .input_schema(schema.clone())
        .build()
        .unwrap();
    assert_eq!(post.input_schema(), &schema);
    let got = echoed(
        &post
            .execute(
                json!({"repo": "tn", "dry": true, "title": "Hi", "n": 1}),
                Context::default(),
            )
            .await
            .output,
    );
    assert_eq!(got["method"], "POST");
    assert_eq!(got["uri"], "/echo/tn?dry=true");
    assert_eq!(got["contentType"], "application/json");
    assert_eq!(
        echoed(got["body"].as_str().unwrap()),
        json!({"title": "Hi", "n": 1})
    );

    let form = HttpTool::new("form", format!("{base}/echo"))
        .method("PUT")
        .body(BodyMode::Form)
        .build()
        .unwrap();
    let got = echoed(
        &form
            .execute(json!({"a": "x y", "b": 2}), Context::default())
            .await
            .output,
    );
    assert_eq!(got["contentType"], "application/x-www-form-urlencoded");
    assert_eq!(got["body"], "a=x+y&b=2");

    let raw = HttpTool::new("raw", format!("{base}/echo"))
        .method("POST")
        .body(BodyMode::Raw)
        .header("Content-Type", "text/csv")
        .build()
        .unwrap();
    let got = echoed(
        &raw.execute(json!({"body": "a,b\n1,2"}), Context::default())
            .await
            .output,
    );
    assert_eq!(
        (got["contentType"].as_str(), got["body"].as_str()),
        (Some("text/csv"), Some("a,b\n1,2"))
    );
}

#[tokio::test(start_paused = true)]
async fn result_modes_and_missing_url_arguments() {
    let base = server().await;
    let json_mode = HttpTool::new("j", format!("{base}/json"))
        .result_mode(ResultMode::Json)
        .build()
        .unwrap();
    assert_eq!(
        json_mode
            .execute(json!({}), Context::default())
            .await
            .output,
        r#"{"a":[1,2]}"#
    );
    let status = HttpTool::new("s", format!("{base}/json"))
        .result_mode(ResultMode::StatusText)
        .build()
        .unwrap();
    assert_eq!(
        status.execute(json!({}), Context::default()).await.output,
        "200\n{ \"a\" : [1, 2] }"
    );
    let needs_id = HttpTool::new("needs_id", format!("{base}/echo/{{id}}"))
        .build()
        .unwrap();
    let result = needs_id
        .execute(json!({"other": 1}), Context::default())
        .await;
    assert!(result.is_error);
    assert_eq!(
        result.output,
        "HTTP tool `needs_id`: missing the argument `id`, which the URL needs"
    );
}

#[tokio::test(start_paused = true)]
async fn the_contract_json_form_declares_the_same_tool() {
    let base = server().await;
    let spec = json!({
        "name": "get_user",
        "description": "Get a user.",
        "method": "GET",
        "url": format!("{base}/echo/users/{{id}}"),
        "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
        "timeout": 5000,
        "resultMode": "text"
    });
    let tool = serde_json::from_value::<HttpTool>(spec)
        .unwrap()
        .build()
        .unwrap();
    let result = tool.execute(json!({"id": "7"}), Context::default()).await;
    assert_eq!(echoed(&result.output)["uri"], "/echo/users/7");
    let unknown =
        serde_json::from_value::<HttpTool>(json!({"name": "x", "url": "http://h/", "bogus": 1}));
    assert!(unknown.unwrap_err().to_string().contains("bogus"));
}

#[test]
fn a_declaration_that_cannot_work_is_refused_at_registration() {
    for (url, method, says) in [
        ("http://exa mple.com/{id}", "GET", "does not parse"),
        ("/relative/{id}", "GET", "does not parse"),
        (
            "ftp://example.com/{id}",
            "GET",
            "must be http:// or https://",
        ),
        ("http://example.com/{a-b}", "GET", "the placeholder `{a-b}`"),
        ("http://example.com/{id", "GET", "a `{` without its `}`"),
        ("http://example.com/id}", "GET", "a `}` without its `{`"),
        (
            "http://example.com/",
            "GE T",
            "`GE T` is not an HTTP method",
        ),
    ] {
        let error = HttpTool::new("bad", url)
            .method(method)
            .build()
            .unwrap_err();
        let text = error.to_string();
        assert!(text.starts_with("HTTP tool `bad`: "), "{text}");
        assert!(text.contains(says), "{url}: {text}");
    }
    let schema = HttpTool::new("bad", "http://example.com/")
        .input_schema(json!({"type": "string"}))
        .build()
        .unwrap_err();
    assert!(schema.message.contains("object schema"), "{schema}");
    let header = HttpTool::new("bad", "http://example.com/")
        .header("Bad Header", "x")
        .build()
        .unwrap_err();
    assert!(header.message.contains("`Bad Header`"), "{header}");
}
