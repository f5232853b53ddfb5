//! HTTP tools carry secrets in their headers (`X-Api-Key: ${KEY}`). These tests check,
//! against real servers on 127.0.0.1, that neither a redirect nor a URL placeholder sends
//! such a header anywhere the declaration did not name:
//!
//! - a redirect to another origin (another port is another origin) is not followed: the
//!   other server receives nothing, and the call is an error result that says why;
//! - a redirect within the origin is followed, at most `max_redirects` times (5 by default);
//! - an `https://` endpoint (nginx with TLS, under a certificate authority `openssl` makes
//!   for the test) that redirects to `http://` is not followed;
//! - a placeholder value that is a dot segment (`.`, `..`, percent-encoded in any case, or
//!   twice) is refused before anything is sent.

use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::Path;
use axum::http::header::LOCATION;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::routing::any;
use serde_json::json;
use toolnexus::Context;
use toolnexus::source::HttpTool;

#[path = "support/nginx.rs"]
#[allow(dead_code)]
mod nginx;

/// What a server received: each request's path and query, and its `x-api-key` header.
type Seen = Arc<Mutex<Vec<(String, Option<String>)>>>;

fn key_of(headers: &HeaderMap) -> Option<String> {
    headers
        .get("x-api-key")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

async fn serve(app: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}")
}

/// A server that records every request it gets and answers `200 stolen`.
async fn recorder() -> (String, Seen) {
    let seen = Seen::default();
    let log = seen.clone();
    let app = Router::new().fallback(any(move |uri: Uri, headers: HeaderMap| {
        let log = log.clone();
        async move {
            log.lock()
                .unwrap()
                .push((uri.to_string(), key_of(&headers)));
            "stolen"
        }
    }));
    (serve(app).await, seen)
}

/// A server that redirects: `/away` (302) and `/away307` (307) to `target`, `/hops/{n}`
/// to `/hops/{n-1}` on itself until `/hops/0`, which answers with the key it received.
async fn redirector(target: String) -> String {
    let to = move |status: StatusCode| {
        let target = target.clone();
        any(move || async move { (status, [(LOCATION, target)]) })
    };
    let app = Router::new()
        .route("/away", to(StatusCode::FOUND))
        .route("/away307", to(StatusCode::TEMPORARY_REDIRECT))
        .route(
            "/hops/{n}",
            any(|Path(n): Path<u32>, headers: HeaderMap| async move {
                if n == 0 {
                    let key = key_of(&headers).unwrap_or_default();
                    return (StatusCode::OK, [(LOCATION, String::new())], key);
                }
                let next = format!("/hops/{}", n - 1);
                (StatusCode::FOUND, [(LOCATION, next)], String::new())
            }),
        );
    serve(app).await
}

/// The secret: a variable cargo surely sets for the tests it runs.
fn secret() -> String {
    format!(
        "Key {}",
        std::env::var("CARGO_PKG_NAME").expect("cargo sets CARGO_PKG_NAME")
    )
}

fn keyed(name: &str, url: String) -> HttpTool {
    HttpTool::new(name, url).header("X-Api-Key", "Key ${CARGO_PKG_NAME}")
}

#[tokio::test]
async fn a_redirect_to_another_origin_is_not_followed_and_the_header_stays_home() {
    let (elsewhere, seen) = recorder().await;
    let base = redirector(format!("{elsewhere}/steal")).await;
    for (path, method) in [("/away", "GET"), ("/away307", "POST")] {
        let tool = keyed("hop", format!("{base}{path}"))
            .method(method)
            .build()
            .unwrap();
        let result = tool.execute(json!({"a": 1}), Context::default()).await;
        assert!(result.is_error, "{path}: {}", result.output);
        assert!(
            result.output.contains("another origin") && result.output.contains(&elsewhere),
            "{path}: {}",
            result.output
        );
        assert!(!result.output.contains(&secret()), "{}", result.output);
    }
    assert!(
        seen.lock().unwrap().is_empty(),
        "the other origin received {:?}",
        seen.lock().unwrap()
    );
}

#[tokio::test]
async fn redirects_within_the_origin_are_followed_up_to_the_limit() {
    let base = redirector(String::new()).await;
    let tool = keyed("hops", format!("{base}/hops/{{n}}")).build().unwrap();
    // Five hops (the default limit) arrive, with the header.
    let result = tool.execute(json!({"n": "5"}), Context::default()).await;
    assert!(!result.is_error, "{}", result.output);
    assert_eq!(result.output, secret());
    // Six do not.
    let result = tool.execute(json!({"n": "6"}), Context::default()).await;
    assert!(result.is_error, "{}", result.output);
    assert!(
        result.output.contains("more than 5 redirects"),
        "{}",
        result.output
    );
    // A tool that follows none.
    let strict = keyed("strict", format!("{base}/hops/{{n}}"))
        .max_redirects(0)
        .build()
        .unwrap();
    let result = strict.execute(json!({"n": "1"}), Context::default()).await;
    assert!(result.is_error, "{}", result.output);
    assert!(
        result.output.contains("more than 0 redirects"),
        "{}",
        result.output
    );
    let result = strict.execute(json!({"n": "0"}), Context::default()).await;
    assert_eq!(result.output, secret());
    // The contract's JSON form sets it too.
    let declared: HttpTool = serde_json::from_value(json!({
        "name": "j", "url": format!("{base}/hops/{{n}}"), "maxRedirects": 1
    }))
    .unwrap();
    let tool = declared.build().unwrap();
    assert!(
        !tool
            .execute(json!({"n": "1"}), Context::default())
            .await
            .is_error
    );
    assert!(
        tool.execute(json!({"n": "2"}), Context::default())
            .await
            .is_error
    );
}

#[tokio::test]
async fn dot_segments_in_url_placeholders_are_refused_before_anything_is_sent() {
    let (base, seen) = recorder().await;
    let tool = keyed("profile", format!("{base}/v1/users/{{id}}/profile?q={{q}}"))
        .build()
        .unwrap();
    for id in [
        ".",
        "..",
        "%2e",
        "%2E%2e",
        ".%2E",
        "%2e.",
        "%252e%252E",
        "../admin",
        "a/../../admin",
        "..\\admin",
    ] {
        let result = tool
            .execute(json!({"id": id, "q": "x"}), Context::default())
            .await;
        assert!(result.is_error, "{id}: {}", result.output);
        assert!(
            result.output.contains("`id`") && result.output.contains("dot segment"),
            "{id}: {}",
            result.output
        );
    }
    assert!(
        seen.lock().unwrap().is_empty(),
        "sent: {:?}",
        seen.lock().unwrap()
    );
    // Dots that are not a whole segment go through, as do dots in the query.
    for (id, q, arrived) in [
        ("a.b", "x", "/v1/users/a.b/profile?q=x"),
        ("...", "..", "/v1/users/.../profile?q=.."),
        ("v1.2", ".", "/v1/users/v1.2/profile?q=."),
    ] {
        let result = tool
            .execute(json!({"id": id, "q": q}), Context::default())
            .await;
        assert_eq!(result.output, "stolen", "{id}");
        let last = seen.lock().unwrap().last().cloned().unwrap();
        assert_eq!(last, (arrived.to_owned(), Some(secret())));
    }
}

// ---------------------------------------------------------------------------------------
// https → http, through nginx with TLS.

fn run(command: &mut Command, what: &str) {
    let output = command
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        output.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A certificate authority and a certificate for 127.0.0.1 signed by it, in `dir`
/// (`ca.pem`, `leaf.pem`, `leaf.key`), made by the `openssl` command.
fn certificates(dir: &std::path::Path) {
    let openssl = || {
        let mut command = Command::new("openssl");
        command.current_dir(dir);
        command
    };
    run(
        openssl().args([
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-keyout",
            "ca.key",
            "-out",
            "ca.pem",
            "-days",
            "2",
            "-subj",
            "/CN=toolnexus test CA",
            "-addext",
            "basicConstraints=critical,CA:TRUE",
            "-addext",
            "keyUsage=critical,keyCertSign",
        ]),
        "openssl makes the CA (apt-get install openssl)",
    );
    run(
        openssl().args([
            "req",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-keyout",
            "leaf.key",
            "-out",
            "leaf.csr",
            "-subj",
            "/CN=127.0.0.1",
        ]),
        "openssl makes the request",
    );
    std::fs::write(
        dir.join("leaf.ext"),
        "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
    )
    .unwrap();
    run(
        openssl().args([
            "x509",
            "-req",
            "-in",
            "leaf.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "leaf.pem",
            "-days",
            "2",
            "-extfile",
            "leaf.ext",
        ]),
        "openssl signs the certificate",
    );
}

/// The test binary's own `tls_child`, with the test CA as the only trusted root
/// (`SSL_CERT_FILE`, which the platform verifier reads on Linux at its start: hence a
/// process of its own).
#[test]
fn an_https_endpoint_that_redirects_to_http_is_not_followed() {
    let dir = std::env::temp_dir().join(format!("toolnexus-tls-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    certificates(&dir);
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["tls_child", "--exact", "--ignored", "--nocapture"])
        .env("SSL_CERT_FILE", dir.join("ca.pem"))
        .env("TOOLNEXUS_TLS_DIR", &dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains("1 passed"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Stops nginx when the test ends, however it ends.
struct Stop(std::process::Child);

impl Drop for Stop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test]
#[ignore = "run by an_https_endpoint_that_redirects_to_http_is_not_followed, with SSL_CERT_FILE"]
async fn tls_child() {
    let dir = std::path::PathBuf::from(std::env::var("TOOLNEXUS_TLS_DIR").unwrap());
    let (plain, seen) = recorder().await;
    let port = nginx::free_port();
    let d = dir.display();
    let conf = format!(
        "daemon off;\nmaster_process off;\nworker_processes 1;\npid {d}/nginx.pid;\n\
         error_log {d}/error.log warn;\nevents {{ worker_connections 64; }}\nhttp {{\n  \
         access_log off;\n  client_body_temp_path {d}/body;\n  proxy_temp_path {d}/proxy;\n  \
         fastcgi_temp_path {d}/fastcgi;\n  uwsgi_temp_path {d}/uwsgi;\n  scgi_temp_path {d}/scgi;\n  \
         server {{\n    listen 127.0.0.1:{port} ssl;\n    ssl_certificate {d}/leaf.pem;\n    \
         ssl_certificate_key {d}/leaf.key;\n    \
         location = /down {{ return 302 {plain}/steal; }}\n    \
         location = /up {{ return 302 https://127.0.0.1:{port}/ok; }}\n    \
         location = /ok {{ return 200 \"fine $http_x_api_key\"; }}\n  }}\n}}\n"
    );
    std::fs::write(dir.join("nginx.conf"), conf).unwrap();
    let _nginx = Stop(
        Command::new(nginx::nginx())
            .arg("-p")
            .arg(&dir)
            .arg("-c")
            .arg(dir.join("nginx.conf"))
            .arg("-e")
            .arg(dir.join("error.log"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("nginx starts"),
    );
    let deadline = Instant::now() + Duration::from_secs(15);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "nginx did not start listening");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let origin = format!("https://127.0.0.1:{port}");

    // TLS works, and a redirect within the https origin is followed with the header.
    let up = keyed("up", format!("{origin}/up")).build().unwrap();
    let result = up.execute(json!({}), Context::default()).await;
    assert_eq!(result.output, format!("fine {}", secret()));

    let down = keyed("down", format!("{origin}/down")).build().unwrap();
    let result = down.execute(json!({}), Context::default()).await;
    assert!(result.is_error, "{}", result.output);
    assert!(
        result.output.contains("from https to http"),
        "{}",
        result.output
    );
    assert!(
        seen.lock().unwrap().is_empty(),
        "the http server received {:?}",
        seen.lock().unwrap()
    );
}
