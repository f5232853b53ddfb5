//! Vertex AI: Gemini through Google Cloud, against a local stand-in of Google's OAuth token
//! endpoint and of Vertex AI's `generateContent`. The test makes a service-account key
//! (`openssl`); the stand-in checks the signed token request with Google's own library
//! (`google-auth`, in the `TOOLNEXUS_PYTHON` venv beside `google-genai`), issues a token,
//! and refuses a request that does not carry it, with Vertex AI's error body. Every
//! Gemini request body is checked by `google-genai`'s types in Vertex mode (its own Vertex
//! request converter rebuilds it); Claude on Vertex (`VertexAnthropic`) is checked by the
//! `anthropic` SDK's `AnthropicVertex` request preparation and its `MessageCreateParams`.

#[allow(dead_code)]
#[path = "support/providers.rs"]
mod harness;
#[allow(dead_code)]
#[path = "providers/server.rs"]
mod server;

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use serde_json::{Value, json};
use toolnexus::agent::StopReason;
use toolnexus::providers::{Vertex, VertexAnthropic};
use toolnexus::{Client, ModelSettings, Reasoning, RunStatus, Toolkit};

#[derive(Default)]
struct Seen {
    issued: Vec<String>,
    bodies: Vec<Value>,
    paths: Vec<String>,
    claims: Vec<Value>,
}

#[derive(Clone)]
struct Stand {
    seen: Arc<Mutex<Seen>>,
    public_key: PathBuf,
    token_uri: Arc<Mutex<String>>,
    revoked: Arc<AtomicBool>,
    python: String,
}

/// A form value, its `%XX` escapes decoded.
fn percent_decoded(value: &str) -> String {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap();
                out.push(u8::from_str_radix(hex, 16).unwrap());
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap()
}

/// A JSON response.
fn reply(status: StatusCode, body: Value) -> axum::response::Response {
    axum::response::Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .body(axum::body::Body::from(body.to_string()))
        .unwrap()
}

/// `POST /token`: a JWT-bearer grant, checked with google-auth against the public key.
async fn token(State(stand): State<Stand>, body: Bytes) -> axum::response::Response {
    let body = String::from_utf8_lossy(&body).into_owned();
    let assertion = body
        .split('&')
        .find_map(|kv| kv.strip_prefix("assertion="))
        .map(percent_decoded)
        .unwrap_or_default();
    let audience = stand.token_uri.lock().unwrap().clone();
    let output = Command::new(&stand.python)
        .args([
            "-c",
            "import sys, json, google.auth.jwt as j; \
             print(json.dumps(j.decode(sys.argv[1], certs=open(sys.argv[2]).read(), audience=sys.argv[3])))",
            &assertion,
            stand.public_key.to_str().unwrap(),
            &audience,
        ])
        .output()
        .unwrap();
    if !output.status.success() {
        eprintln!(
            "the token request was refused: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let refused =
            json!({"error": "invalid_grant", "error_description": "Invalid JWT Signature."});
        return reply(StatusCode::BAD_REQUEST, refused);
    }
    let claims: Value = serde_json::from_slice(&output.stdout).unwrap();
    let mut seen = stand.seen.lock().unwrap();
    let access = format!("ya29.test-{}", seen.issued.len() + 1);
    seen.issued.push(access.clone());
    seen.claims.push(claims);
    reply(
        StatusCode::OK,
        json!({"access_token": access, "expires_in": 3599, "token_type": "Bearer"}),
    )
}

/// Vertex AI's `generateContent`: the bearer token must be one it issued.
async fn generate(State(stand): State<Stand>, request: Request) -> axum::response::Response {
    let (parts, body) = request.into_parts();
    let bytes = axum::body::to_bytes(body, 1 << 20).await.unwrap();
    let bearer = parts
        .headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or("")
        .to_owned();
    let mut seen = stand.seen.lock().unwrap();
    seen.paths.push(parts.uri.to_string());
    seen.bodies
        .push(serde_json::from_slice(&bytes).unwrap_or(Value::Null));
    if stand.revoked.load(Ordering::SeqCst) || !seen.issued.contains(&bearer) {
        let body = json!({"error": {"code": 401,
            "message": "Request had invalid authentication credentials. Expected OAuth 2 access \
                        token, login cookie or other valid authentication credential. See \
                        https://developers.google.com/identity/sign-in/web/devconsole-project.",
            "status": "UNAUTHENTICATED"}});
        return reply(StatusCode::UNAUTHORIZED, body);
    }
    if parts.uri.path().ends_with(":rawPredict") {
        return reply(
            StatusCode::OK,
            json!({"id": "msg_01", "type": "message", "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": [{"type": "thinking", "thinking": "A greeting.", "signature": "sig-1"},
                            {"type": "text", "text": "Hello from Claude on Vertex."}],
                "stop_reason": "end_turn", "stop_sequence": null,
                "usage": {"input_tokens": 5, "output_tokens": 6}}),
        );
    }
    if parts.uri.path().ends_with(":streamRawPredict") {
        let events = [
            (
                "message_start",
                json!({"type": "message_start", "message": {"id": "msg_02",
                "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                "content": [], "stop_reason": null, "stop_sequence": null,
                "usage": {"input_tokens": 5, "output_tokens": 1}}}),
            ),
            (
                "content_block_start",
                json!({"type": "content_block_start", "index": 0,
                "content_block": {"type": "text", "text": ""}}),
            ),
            (
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 0,
                "delta": {"type": "text_delta", "text": "Hello from "}}),
            ),
            (
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 0,
                "delta": {"type": "text_delta", "text": "Claude on Vertex."}}),
            ),
            (
                "content_block_stop",
                json!({"type": "content_block_stop", "index": 0}),
            ),
            (
                "message_delta",
                json!({"type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": null},
                "usage": {"output_tokens": 6}}),
            ),
            ("message_stop", json!({"type": "message_stop"})),
        ];
        let body: String = events
            .iter()
            .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
            .collect();
        return axum::response::Response::builder()
            .header("content-type", "text/event-stream")
            .body(axum::body::Body::from(body))
            .unwrap();
    }
    if parts.uri.path().ends_with(":streamGenerateContent") {
        let chunk = |text: &str, last: bool| {
            let mut chunk =
                json!({"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}}]});
            if last {
                chunk["candidates"][0]["finishReason"] = json!("STOP");
                chunk["usageMetadata"] =
                    json!({"promptTokenCount": 5, "candidatesTokenCount": 4, "totalTokenCount": 9});
            }
            format!("data: {chunk}\r\n\r\n")
        };
        let body = chunk("Hello ", false) + &chunk("from Vertex.", true);
        return axum::response::Response::builder()
            .header("content-type", "text/event-stream")
            .body(axum::body::Body::from(body))
            .unwrap();
    }
    reply(
        StatusCode::OK,
        json!({
            "candidates": [{"content": {"role": "model", "parts": [{"text": "Hello from Vertex."}]},
                            "finishReason": "STOP"}],
            "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 4, "totalTokenCount": 9},
            "modelVersion": "gemini-2.5-flash"
        }),
    )
}

/// A fresh RSA key (PKCS#8 PEM) and its public key's path.
fn keypair(dir: &std::path::Path, name: &str) -> (String, PathBuf) {
    let private = dir.join(format!("{name}.pem"));
    let public = dir.join(format!("{name}.pub.pem"));
    let ok = Command::new("openssl")
        .args([
            "genpkey",
            "-algorithm",
            "RSA",
            "-pkeyopt",
            "rsa_keygen_bits:2048",
            "-out",
        ])
        .arg(&private)
        .status()
        .unwrap()
        .success();
    assert!(ok, "openssl makes the key");
    let ok = Command::new("openssl")
        .args(["pkey", "-pubout", "-in"])
        .arg(&private)
        .arg("-out")
        .arg(&public)
        .status()
        .unwrap()
        .success();
    assert!(ok);
    (std::fs::read_to_string(private).unwrap(), public)
}

fn account(private_key: &str, token_uri: &str) -> String {
    json!({"type": "service_account", "project_id": "test-project", "private_key_id": "k1",
        "private_key": private_key, "client_email": "runner@test-project.iam.gserviceaccount.com",
        "client_id": "1", "token_uri": token_uri})
    .to_string()
}

#[tokio::test]
async fn vertex_signs_in_with_a_service_account_and_is_refused_with_a_wrong_token() {
    let Ok(python) = std::env::var("TOOLNEXUS_PYTHON") else {
        assert!(
            std::env::var_os("CI").is_none(),
            "TOOLNEXUS_PYTHON is not set"
        );
        eprintln!("NOTICE: TOOLNEXUS_PYTHON is not set (run .ci/test); skipped");
        return;
    };
    let dir = std::env::temp_dir().join(format!("toolnexus-vertex-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (private, public) = keypair(&dir, "account");
    let (stranger, _) = keypair(&dir, "stranger");

    let stand = Stand {
        seen: Arc::default(),
        public_key: public,
        token_uri: Arc::default(),
        revoked: Arc::default(),
        python,
    };
    let app = axum::Router::new()
        .route("/token", axum::routing::post(token))
        .fallback(generate)
        .with_state(stand.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    let token_uri = format!("{url}/token");
    *stand.token_uri.lock().unwrap() = token_uri.clone();

    let model = |key: &str| {
        Vertex::new("test-project", "us-central1", "gemini-2.5-flash")
            .with_base_url(&url)
            .retry(toolnexus::providers::Retry::none())
            .service_account_key(&account(key, &token_uri))
            .unwrap()
    };
    let run = Client::new(model(&private))
        .system("Be brief.")
        .run("Hello?", &Toolkit::new())
        .await;
    assert!(run.is_done(), "{:?}", run.status);
    assert_eq!(run.text, "Hello from Vertex.");
    assert_eq!(run.model.as_deref(), Some("gemini-2.5-flash"));
    {
        let seen = stand.seen.lock().unwrap();
        assert_eq!(
            seen.paths,
            [
                "/v1/projects/test-project/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent"
            ]
        );
        assert_eq!(
            seen.claims[0]["iss"],
            "runner@test-project.iam.gserviceaccount.com"
        );
        assert_eq!(
            seen.claims[0]["scope"],
            "https://www.googleapis.com/auth/cloud-platform"
        );
        harness::validate("gemini-vertex", &seen.bodies);
    }

    // Streamed (`:streamGenerateContent`), on a token of its own.
    let deltas = Arc::new(Mutex::new(String::new()));
    let seen = deltas.clone();
    let run = Client::new(model(&private))
        .on_event(move |event| {
            if let toolnexus::Event::TextDelta { text, .. } = event {
                seen.lock().unwrap().push_str(text);
            }
        })
        .run("Hello again?", &Toolkit::new())
        .await;
    assert!(run.is_done(), "{:?}", run.status);
    assert_eq!(run.text, "Hello from Vertex.");
    assert_eq!(*deltas.lock().unwrap(), "Hello from Vertex.");
    {
        let seen = stand.seen.lock().unwrap();
        assert!(seen.paths[1].ends_with("gemini-2.5-flash:streamGenerateContent?alt=sse"));
        harness::validate("gemini-vertex", &seen.bodies);
    }

    // Claude on Vertex AI (`:rawPredict`, then `:streamRawPredict`): Anthropic's body
    // without `model`, with Vertex's `anthropic_version`, thinking and caching kept.
    let claude = || {
        VertexAnthropic::new("test-project", "us-east5", "claude-sonnet-4-5")
            .with_base_url(&url)
            .retry(toolnexus::providers::Retry::none())
            .with_settings(ModelSettings::default().reasoning(Reasoning::budget(2048)))
            .service_account_key(&account(&private, &token_uri))
            .unwrap()
    };
    let run = Client::new(claude())
        .system("Be brief.")
        .run("Hello?", &Toolkit::new())
        .await;
    assert!(run.is_done(), "{:?}", run.status);
    assert_eq!(run.text, "Hello from Claude on Vertex.");
    let deltas = Arc::new(Mutex::new(String::new()));
    let seen = deltas.clone();
    let run = Client::new(claude())
        .on_event(move |event| {
            if let toolnexus::Event::TextDelta { text, .. } = event {
                seen.lock().unwrap().push_str(text);
            }
        })
        .run("Hello again?", &Toolkit::new())
        .await;
    assert!(run.is_done(), "{:?}", run.status);
    assert_eq!(*deltas.lock().unwrap(), "Hello from Claude on Vertex.");
    {
        let seen = stand.seen.lock().unwrap();
        let path = "/v1/projects/test-project/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5";
        assert_eq!(seen.paths[2], format!("{path}:rawPredict"));
        assert_eq!(seen.paths[3], format!("{path}:streamRawPredict"));
        let claude = &seen.bodies[2..4];
        assert_eq!(claude[0]["anthropic_version"], "vertex-2023-10-16");
        assert!(claude[0].get("model").is_none());
        assert_eq!(claude[0]["thinking"]["budget_tokens"], 2048);
        assert_eq!(claude[1]["stream"], true);
        assert!(
            claude[0].to_string().contains("cache_control"),
            "{}",
            claude[0]
        );
        harness::validate("anthropic-vertex", claude);
    }

    // A key the account does not have: the token endpoint refuses it, nothing is asked.
    let run = Client::new(model(&stranger))
        .run("Hello?", &Toolkit::new())
        .await;
    let RunStatus::Incomplete {
        reason: StopReason::ModelError { message },
    } = &run.status
    else {
        panic!("{:?}", run.status);
    };
    assert!(
        message.contains("could not get an access token"),
        "{message}"
    );
    assert_eq!(
        stand.seen.lock().unwrap().bodies.len(),
        4,
        "nothing was asked"
    );

    // A token the API no longer takes: refused with Vertex AI's own error.
    stand.revoked.store(true, Ordering::SeqCst);
    let run = Client::new(model(&private))
        .run("Hello?", &Toolkit::new())
        .await;
    let RunStatus::Incomplete {
        reason: StopReason::ModelError { message },
    } = &run.status
    else {
        panic!("{:?}", run.status);
    };
    assert!(message.contains("HTTP 401"), "{message}");
    assert!(message.contains("UNAUTHENTICATED"), "{message}");
    assert!(message.contains("access token was refused"), "{message}");
    task.abort();
    let _ = std::fs::remove_dir_all(&dir);
}
