//! Where `webfetch` may connect: loopback, link-local (the cloud metadata address),
//! private and unique-local addresses are refused, by literal address and after
//! resolving a name, and on every redirect hop; redirects stay within the origin;
//! `approval(true)` gates the tool. The servers are on 127.0.0.1 and 127.0.0.2 and count
//! the requests they get, so a refusal is shown to have sent nothing. Nothing here
//! connects anywhere but loopback: the other addresses are refused before any
//! connection.

use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;
use serde_json::{Value, json};
use toolnexus::builtins::Builtins;
use toolnexus::{Context, ToolResult, Toolkit};

/// A server on `ip` that counts its requests; `/page` answers, `/to?url=…` redirects.
struct Server {
    base: String,
    hits: Arc<AtomicUsize>,
}

impl Server {
    fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }
}

async fn serve(ip: Ipv4Addr) -> Server {
    let hits = Arc::new(AtomicUsize::new(0));
    let app = Router::new()
        .route(
            "/page",
            get(|State(hits): State<Arc<AtomicUsize>>| async move {
                hits.fetch_add(1, Ordering::SeqCst);
                ([(header::CONTENT_TYPE, "text/plain")], "the page")
            }),
        )
        .route(
            "/to",
            get(
                |State(hits): State<Arc<AtomicUsize>>,
                 axum::extract::RawQuery(query): axum::extract::RawQuery| async move {
                    hits.fetch_add(1, Ordering::SeqCst);
                    let target = query.unwrap_or_default();
                    (StatusCode::FOUND, [(header::LOCATION, target)]).into_response()
                },
            ),
        )
        .with_state(Arc::clone(&hits));
    let listener = tokio::net::TcpListener::bind((ip, 0))
        .await
        .expect("a port");
    let address = listener.local_addr().expect("an address");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Server {
        base: format!("http://{address}"),
        hits,
    }
}

async fn fetch(toolkit: &Toolkit, url: &str) -> ToolResult {
    toolkit
        .execute(
            "webfetch",
            json!({"url": url, "timeout": 10}),
            Context::default(),
        )
        .await
}

const LOCAL: Ipv4Addr = Ipv4Addr::LOCALHOST;
const OTHER: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 2);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loopback_link_local_and_private_addresses_are_refused() {
    let server = serve(LOCAL).await;
    let port = server.base.rsplit(':').next().expect("a port").to_owned();
    let toolkit = Toolkit::new().with_builtins(Builtins::all());

    let loopback = fetch(&toolkit, &format!("{}/page", server.base)).await;
    assert!(loopback.is_error);
    assert_eq!(
        loopback.output,
        format!(
            "webfetch: {}/page is refused: 127.0.0.1 is a loopback address, and webfetch \
             reaches only public addresses",
            server.base
        )
    );

    // A name that resolves to loopback: refused after resolving, before connecting.
    let named = fetch(&toolkit, &format!("http://localhost:{port}/page")).await;
    assert!(named.is_error, "{}", named.output);
    assert!(
        named.output.starts_with("webfetch: localhost resolves to ")
            && named.output.contains("127.0.0.1")
            && named.output.contains("is a loopback address"),
        "{}",
        named.output
    );
    assert_eq!(server.hits(), 0, "nothing reached the server");

    // Literal addresses are refused before any connection is tried.
    for (url, kind) in [
        ("http://169.254.169.254/latest/meta-data/", "link-local"),
        (
            "http://[::ffff:169.254.169.254]/latest/meta-data/",
            "link-local",
        ),
        ("http://[fe80::1]/", "link-local"),
        ("http://10.0.0.1/", "private"),
        ("http://172.16.0.1/", "private"),
        ("http://192.168.0.1/", "private"),
        ("http://[fd00::1]/", "unique-local"),
        ("http://[::1]/", "loopback"),
        ("http://0.0.0.0/", "unspecified"),
        ("http://[::ffff:127.0.0.1]/", "loopback"),
        ("http://2130706433/", "loopback"),
    ] {
        let result = fetch(&toolkit, url).await;
        assert!(
            result.is_error && result.output.contains(&format!("is a {kind} address")),
            "{url}: {}",
            result.output
        );
    }

    // The app opts in: all of them, or one address.
    for builtins in [
        Builtins::all().allow_private_network(true),
        Builtins::all().allow_address(IpAddr::V4(LOCAL)),
    ] {
        let toolkit = Toolkit::new().with_builtins(builtins);
        let page = fetch(&toolkit, &format!("{}/page", server.base)).await;
        assert_eq!((page.output.as_str(), page.is_error), ("the page", false));
    }
    assert_eq!(server.hits(), 2);
}

fn redirect(server: &Server, to: &str) -> String {
    format!("{}/to?{to}", server.base)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redirects_stay_within_the_origin_and_the_allowed_addresses() {
    let (allowed, other_port, other_ip) = tokio::join!(serve(LOCAL), serve(LOCAL), serve(OTHER));
    let toolkit = Toolkit::new().with_builtins(Builtins::all().allow_address(IpAddr::V4(LOCAL)));

    // Within the origin: followed.
    let same = fetch(&toolkit, &redirect(&allowed, "/page")).await;
    assert_eq!((same.output.as_str(), same.is_error), ("the page", false));

    // To another port of the same host: another origin, not followed.
    let target = format!("{}/page", other_port.base);
    let cross = fetch(&toolkit, &redirect(&allowed, &target)).await;
    assert!(cross.is_error, "{}", cross.output);
    assert_eq!(
        cross.output,
        format!(
            "webfetch: {} redirects to {target}, another origin than {}: not followed \
             (webfetch follows redirects within the origin it was asked for)",
            redirect(&allowed, &target),
            allowed.base
        )
    );
    assert_eq!(other_port.hits(), 0);

    // With cross-origin redirects allowed, a hop to an address that is not allowed
    // (loopback, but not the one allowed) is still refused, literal or by name.
    let open = Toolkit::new().with_builtins(
        Builtins::all()
            .allow_address(IpAddr::V4(LOCAL))
            .cross_origin_redirects(true),
    );
    let to_other_ip = format!("{}/page", other_ip.base);
    let refused = fetch(&open, &redirect(&allowed, &to_other_ip)).await;
    assert!(
        refused.is_error && refused.output.contains("127.0.0.2 is a loopback address"),
        "{}",
        refused.output
    );
    assert_eq!(other_ip.hits(), 0, "nothing reached 127.0.0.2");
    let metadata = fetch(
        &open,
        &redirect(&allowed, "http://169.254.169.254/latest/meta-data/"),
    )
    .await;
    assert!(
        metadata.is_error
            && metadata
                .output
                .contains("169.254.169.254 is a link-local address"),
        "{}",
        metadata.output
    );
    // The allowed address on another port is followed now.
    let followed = fetch(&open, &redirect(&allowed, &target)).await;
    assert_eq!(followed.output, "the page");
    assert_eq!(other_port.hits(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_approval_webfetch_asks_before_it_fetches() {
    let server = serve(LOCAL).await;
    let toolkit = Toolkit::new().with_builtins(
        Builtins::all()
            .allow_address(IpAddr::V4(LOCAL))
            .approval(true),
    );
    assert!(toolkit.get("webfetch").unwrap().requires_approval());
    let args: Value = json!({"url": format!("{}/page", server.base)});
    let ctx = Context::new().with_call_id("call-1");
    let asked = toolkit.execute("webfetch", args.clone(), ctx.clone()).await;
    let request = asked.pending_request().expect("an approval request");
    assert_eq!(request.kind, "approval");
    assert_eq!(server.hits(), 0, "nothing fetched before the answer");
    let done = toolkit
        .execute("webfetch", args, ctx.with_answer(request.answer(true)))
        .await;
    assert_eq!(done.output, "the page");
    assert_eq!(server.hits(), 1);
}
