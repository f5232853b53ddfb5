//! `McpClient`'s logins (feature `mcp-auth`) against servers that try to misuse them, all
//! axum apps on 127.0.0.1 in the test's own runtime (its clock paused, so a server that
//! never finishes costs no real time), and `FileTokenStore` against files planted where it
//! writes:
//!
//! - the MCP transport follows only same-origin 307/308 redirects, so a redirect does not
//!   carry the session or the custom headers to another host;
//! - authorization server metadata that fails RFC 8414's issuer check is used only when
//!   it is a 2025-03-26 server's own (issuer and endpoints on the MCP server's origin);
//!   metadata that points the login at another origin is refused, and the login never
//!   starts;
//! - that metadata is read within 10 seconds and 1 MiB;
//! - the token file is written through a new temporary file (random name, created
//!   exclusively, owner-only) and renamed; a symbolic link where it is kept is refused.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::header::{CONTENT_TYPE, LOCATION, WWW_AUTHENTICATE};
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use serde_json::json;
use toolnexus::mcp::{
    FileTokenStore, McpClient, McpClientError, OAuth, StoredCredentials, TokenStore,
};

/// What a server received: method, path, and the `x-api-key` header.
type Seen = Arc<Mutex<Vec<(String, String, Option<String>)>>>;

fn record(seen: &Seen, method: &Method, uri: &Uri, headers: &HeaderMap) {
    let key = headers
        .get("x-api-key")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    seen.lock()
        .unwrap()
        .push((method.to_string(), uri.path().to_owned(), key));
}

async fn serve(app: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}")
}

/// Records every request; answers `200 stolen`.
async fn recorder() -> (String, Seen) {
    let seen = Seen::default();
    let log = seen.clone();
    let app = Router::new().fallback(any(move |method: Method, uri: Uri, headers: HeaderMap| {
        let log = log.clone();
        async move {
            record(&log, &method, &uri, &headers);
            "stolen"
        }
    }));
    (serve(app).await, seen)
}

/// The authorization URLs a login handler was given (it completes none of them).
type Asked = Arc<Mutex<Vec<String>>>;

fn login(asked: &Asked) -> OAuth {
    let asked = asked.clone();
    OAuth::new(move |url: String| {
        let asked = asked.clone();
        async move {
            asked.lock().unwrap().push(url);
            Err::<String, String>("this test completes no login".to_owned())
        }
    })
    .preregistered("app", None)
}

#[tokio::test(start_paused = true)]
async fn the_transport_follows_no_redirect_to_another_origin() {
    let (elsewhere, stolen) = recorder().await;
    let seen = Seen::default();
    let log = seen.clone();
    let target = format!("{elsewhere}/mcp");
    let app = Router::new().fallback(any(move |method: Method, uri: Uri, headers: HeaderMap| {
        let (log, target) = (log.clone(), target.clone());
        async move {
            record(&log, &method, &uri, &headers);
            let to = match uri.path() {
                "/away" => target,
                "/moved" => "/here".to_owned(),
                _ => return StatusCode::NOT_FOUND.into_response(),
            };
            (StatusCode::TEMPORARY_REDIRECT, [(LOCATION, to)]).into_response()
        }
    }));
    let base = serve(app).await;
    let asked = Asked::default();
    let connect = |path: &str| {
        McpClient::http(format!("{base}{path}"))
            .header("X-Api-Key", "secret-7")
            .oauth(login(&asked))
            .connect_timeout(Duration::from_secs(60))
            .connect()
    };
    assert!(connect("/away").await.is_err());
    assert!(
        stolen.lock().unwrap().is_empty(),
        "the other origin received {:?}",
        stolen.lock().unwrap()
    );
    // A redirect within the origin is followed, with the headers.
    assert!(connect("/moved").await.is_err());
    let here: Vec<_> = seen
        .lock()
        .unwrap()
        .iter()
        .filter(|(_, path, _)| path == "/here")
        .cloned()
        .collect();
    assert!(
        !here.is_empty()
            && here[0]
                == (
                    "POST".to_owned(),
                    "/here".to_owned(),
                    Some("secret-7".to_owned())
                ),
        "{here:?}"
    );
}

/// How the authorization server metadata at the MCP origin's
/// `/.well-known/oauth-authorization-server` misbehaves, once the SDK's own discovery
/// (the first request there) was refused for its issuer.
#[derive(Clone, Copy)]
enum Metadata {
    /// Names an issuer and an authorization endpoint on another origin (a mix-up).
    Elsewhere,
    /// Sends a few bytes, then nothing, never ending.
    Trickle,
    /// Valid metadata, padded past 1 MiB.
    Huge,
}

/// An MCP server that wants a login (401, no protected resource metadata), and whose
/// authorization server metadata has the issuer `{origin}/oauth`, not its origin: what
/// RFC 8414's check refuses and a 2025-03-26 server publishes. `idp` is another origin.
async fn login_server(mode: Metadata, idp: String) -> (String, Seen) {
    let seen = Seen::default();
    let log = seen.clone();
    let origin = Arc::new(Mutex::new(String::new()));
    let own = origin.clone();
    let asked = Arc::new(Mutex::new(0));
    let app = Router::new().fallback(any(move |method: Method, uri: Uri, headers: HeaderMap| {
        let (log, origin, asked, idp) = (log.clone(), own.clone(), asked.clone(), idp.clone());
        async move {
            record(&log, &method, &uri, &headers);
            let origin = origin.lock().unwrap().clone();
            match uri.path() {
                "/mcp" => {
                    (StatusCode::UNAUTHORIZED, [(WWW_AUTHENTICATE, "Bearer")]).into_response()
                }
                "/.well-known/oauth-authorization-server" => {
                    let n = {
                        let mut n = asked.lock().unwrap();
                        *n += 1;
                        *n
                    };
                    metadata(mode, n, &origin, &idp)
                }
                _ => StatusCode::NOT_FOUND.into_response(),
            }
        }
    }));
    let base = serve(app).await;
    *origin.lock().unwrap() = base.clone();
    (base, seen)
}

fn json_body(value: &serde_json::Value) -> Response {
    ([(CONTENT_TYPE, "application/json")], value.to_string()).into_response()
}

fn metadata(mode: Metadata, n: u32, origin: &str, idp: &str) -> Response {
    let mut body = json!({
        "issuer": format!("{origin}/oauth"),
        "authorization_endpoint": format!("{origin}/authorize"),
        "token_endpoint": format!("{origin}/token"),
        "registration_endpoint": format!("{origin}/register"),
        "response_types_supported": ["code"],
        "code_challenge_methods_supported": ["S256"],
    });
    if n == 1 {
        return json_body(&body);
    }
    match mode {
        Metadata::Elsewhere => {
            body["issuer"] = json!("https://idp.example.test");
            body["authorization_endpoint"] = json!(format!("{idp}/authorize"));
            json_body(&body)
        }
        Metadata::Huge => {
            body["padding"] = json!("x".repeat(3 * 1024 * 1024));
            json_body(&body)
        }
        Metadata::Trickle => {
            let chunks = futures_util::stream::unfold(0u32, |i| async move {
                if i > 0 {
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
                Some((
                    Ok::<_, std::io::Error>(if i == 0 { "{" } else { " " }),
                    i + 1,
                ))
            });
            Response::builder()
                .header("content-type", "application/json")
                .body(Body::from_stream(chunks))
                .unwrap()
        }
    }
}

async fn refused_login(mode: Metadata) -> (String, Seen, Seen, Asked) {
    let (idp, idp_seen) = recorder().await;
    let (base, seen) = login_server(mode, idp).await;
    let asked = Asked::default();
    let result = McpClient::http(format!("{base}/mcp"))
        .oauth(login(&asked))
        .connect_timeout(Duration::from_secs(600))
        .connect()
        .await;
    let message = match result {
        Err(McpClientError::Authorization { message, .. }) => message,
        other => panic!("{:?}", other.map(|_| "connected")),
    };
    (message, seen, idp_seen, asked)
}

#[tokio::test(start_paused = true)]
async fn metadata_that_fails_the_issuer_check_and_points_elsewhere_is_refused() {
    let (message, seen, idp, asked) = refused_login(Metadata::Elsewhere).await;
    assert!(
        asked.lock().unwrap().is_empty(),
        "{:?}",
        asked.lock().unwrap()
    );
    assert!(idp.lock().unwrap().is_empty());
    assert!(
        message.contains("issuer") && message.contains("another origin"),
        "{message}"
    );
    assert_eq!(
        seen.lock()
            .unwrap()
            .iter()
            .filter(|r| r.1 == "/token" || r.1 == "/register")
            .count(),
        0
    );
}

#[tokio::test(start_paused = true)]
async fn metadata_that_never_finishes_is_given_up_after_ten_seconds() {
    let (message, _, _, asked) = refused_login(Metadata::Trickle).await;
    assert!(asked.lock().unwrap().is_empty());
    assert!(message.contains("within 10s"), "{message}");
}

#[tokio::test(start_paused = true)]
async fn metadata_over_a_mebibyte_is_refused() {
    let (message, seen, _, asked) = refused_login(Metadata::Huge).await;
    assert!(asked.lock().unwrap().is_empty());
    assert!(message.contains("1 MiB"), "{message}");
    assert_eq!(
        seen.lock()
            .unwrap()
            .iter()
            .filter(|r| r.1 == "/register")
            .count(),
        0
    );
}

// ---------------------------------------------------------------------------------------
// FileTokenStore

fn credentials(token: &str) -> StoredCredentials {
    let response = serde_json::from_value(json!({
        "access_token": token, "token_type": "Bearer", "refresh_token": format!("{token}-refresh")
    }))
    .unwrap();
    StoredCredentials::new("app".to_owned(), Some(response), Vec::new(), None)
}

struct Scratch(std::path::PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("toolnexus-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(unix)]
fn mode(path: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[cfg(unix)]
#[tokio::test]
async fn the_token_file_is_written_through_a_fresh_owner_only_file() {
    use std::os::unix::fs::PermissionsExt as _;
    let scratch = Scratch::new("tokens-planted");
    let victim = scratch.0.join("victim.txt");
    std::fs::write(&victim, "precious").unwrap();
    // What someone sharing the folder planted where a fixed temporary name would be:
    // a link to their file, and a world-readable file of their own.
    let path = scratch.0.join("login.json");
    std::os::unix::fs::symlink(&victim, scratch.0.join("login.json.tmp")).unwrap();
    let other = scratch.0.join("other.json");
    let planted = scratch.0.join("other.json.tmp");
    std::fs::write(&planted, "").unwrap();
    std::fs::set_permissions(&planted, std::fs::Permissions::from_mode(0o644)).unwrap();

    let store = FileTokenStore::new(&path);
    store.save(credentials("tok-1")).await.unwrap();
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    assert_eq!(mode(&path), 0o600);
    let loaded = store.load().await.unwrap().unwrap();
    assert_eq!(loaded.client_id, "app");

    let store = FileTokenStore::new(&other);
    store.save(credentials("tok-2")).await.unwrap();
    assert_eq!(mode(&other), 0o600);
    assert_eq!(
        std::fs::read_to_string(&planted).unwrap(),
        "",
        "the planted file got the token"
    );
    let written = std::fs::read_to_string(&other).unwrap();
    assert!(written.contains("tok-2-refresh"), "{written}");
    // Replacing keeps the mode, and leaves no temporary file behind.
    store.save(credentials("tok-3")).await.unwrap();
    assert_eq!(mode(&other), 0o600);
    let names: Vec<String> = std::fs::read_dir(&scratch.0)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 5, "{names:?}");
}

#[cfg(unix)]
#[tokio::test]
async fn a_symbolic_link_where_the_token_file_is_kept_is_refused() {
    let scratch = Scratch::new("tokens-link");
    let victim = scratch.0.join("victim.json");
    std::fs::write(&victim, "{}").unwrap();
    let path = scratch.0.join("login.json");
    std::os::unix::fs::symlink(&victim, &path).unwrap();
    let store = FileTokenStore::new(&path);
    let error = store
        .save(credentials("tok"))
        .await
        .unwrap_err()
        .to_string();
    assert!(error.contains("symbolic link"), "{error}");
    let error = store.load().await.unwrap_err().to_string();
    assert!(error.contains("symbolic link"), "{error}");
    assert!(
        std::fs::symlink_metadata(&path)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "{}");
}
