//! The middleware: a request's `Host` and `Origin` checked, a body's type, size and
//! arrival time bounded, each refusal answered with what was wrong and how to allow it;
//! the body, read once, handed on to the endpoint.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::middleware::Next;
use axum::response::Response;
use http_body_util::{BodyExt, LengthLimitError, Limited};

use super::WebGuard;
use super::allow::{HostRefusal, OriginRefusal};

/// `router` behind `guard`: every request to it goes through [`guard()`] first.
#[cfg_attr(not(feature = "ui"), allow(dead_code))] // The surfaces that mount routers.
pub(crate) fn layer<S>(router: Router<S>, guard: WebGuard) -> Router<S>
where
    S: Clone + Send + Sync + 'static,
{
    router.layer(axum::middleware::from_fn_with_state(
        Arc::new(guard),
        self::guard,
    ))
}

/// The middleware (`axum::middleware::from_fn_with_state`): refuses what the guard does
/// not accept, and passes the rest on with its body already read.
#[cfg_attr(not(feature = "ui"), allow(dead_code))]
pub(crate) async fn guard(
    State(guard): State<Arc<WebGuard>>,
    request: Request,
    next: Next,
) -> Response {
    if let Some(refused) = guard.refusal(request.uri(), request.headers()) {
        return refused;
    }
    if !matches!(
        *request.method(),
        Method::POST | Method::PUT | Method::PATCH
    ) {
        return next.run(request).await;
    }
    if !is_json(request.headers()) {
        return not_json(request.headers());
    }
    let (parts, body) = request.into_parts();
    match guard.read(body).await {
        Ok(bytes) => {
            next.run(Request::from_parts(parts, Body::from(bytes)))
                .await
        }
        Err(refused) => refused,
    }
}

impl WebGuard {
    /// Checks the `Host` and `Origin` of a request: the refusal to send, if any.
    pub(crate) fn refusal(&self, uri: &Uri, headers: &HeaderMap) -> Option<Response> {
        self.check_caller(uri, headers).err()
    }

    #[allow(clippy::result_large_err)] // Built once per refused request only.
    fn check_caller(&self, uri: &Uri, headers: &HeaderMap) -> Result<(), Response> {
        let config = self.config;
        self.hosts
            .check_host(uri, headers)
            .map_err(|refusal| match refusal {
                HostRefusal::Missing => text(
                    StatusCode::BAD_REQUEST,
                    "Bad Request: the request has no Host header".to_owned(),
                ),
                HostRefusal::Malformed => text(
                    StatusCode::BAD_REQUEST,
                    "Bad Request: the Host header is not a host name with an optional port"
                        .to_owned(),
                ),
                HostRefusal::NotAllowed => text(
                    StatusCode::FORBIDDEN,
                    format!(
                        "Forbidden: the Host header names a host this server does not answer to \
                     (a guard against DNS rebinding); a server reached by another name than \
                     the loopback ones allows it with {config}::allowed_hosts"
                    ),
                ),
            })?;
        self.origins.check_origin(headers).map_err(|refusal| {
            let what = match refusal {
                OriginRefusal::Malformed => "the Origin header is not scheme://host[:port]",
                OriginRefusal::NotAllowed => {
                    "the Origin header names a web page this server does not accept calls from"
                }
            };
            text(
                StatusCode::FORBIDDEN,
                format!(
                    "Forbidden: {what}; a web app served from another origin than the \
                     loopback ones is allowed with {config}::allowed_origins"
                ),
            )
        })
    }

    /// Reads a body within the timeout and up to the bound.
    pub(crate) async fn read(&self, body: Body) -> Result<Bytes, Response> {
        read_body(body, self.max_body, self.body_read_timeout, self.config).await
    }
}

/// The body, read within `timeout` and up to `max` bytes: `408` (and the connection
/// closed) for a body that trickles in, `413` for one too large; the refusals name
/// `config`'s setters.
pub(crate) async fn read_body(
    body: Body,
    max: usize,
    timeout: Duration,
    config: &str,
) -> Result<Bytes, Response> {
    let Ok(read) = tokio::time::timeout(timeout, Limited::new(body, max).collect()).await else {
        let mut response = text(
            StatusCode::REQUEST_TIMEOUT,
            format!(
                "Request Timeout: the request body did not arrive within {} ms \
                 ({config}::body_read_timeout)",
                timeout.as_millis()
            ),
        );
        response
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
        return Err(response);
    };
    match read {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(error) if error.is::<LengthLimitError>() => Err(text(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "Payload Too Large: the request body exceeds the server's limit of {max} bytes"
            ),
        )),
        Err(error) => Err(text(
            StatusCode::BAD_REQUEST,
            format!("Bad Request: reading the request body failed: {error}"),
        )),
    }
}

/// Whether a request's `Content-Type` is JSON: its essence exactly `application/json`
/// (parameters such as `charset` allowed).
pub(crate) fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(is_json_type)
}

fn is_json_type(value: &str) -> bool {
    let essence = value.split(';').next().unwrap_or_default().trim();
    essence.eq_ignore_ascii_case("application/json")
}

fn not_json(headers: &HeaderMap) -> Response {
    let got = match headers.get(header::CONTENT_TYPE) {
        None => "none was given".to_owned(),
        Some(value) => match value.to_str() {
            Ok(value) if value.len() <= 100 => format!("got `{value}`"),
            _ => "got another".to_owned(),
        },
    };
    text(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        format!(
            "Unsupported Media Type: the body must be JSON sent with \
             `Content-Type: application/json` ({got})"
        ),
    )
}

fn text(status: StatusCode, text: String) -> Response {
    let mut response = Response::new(Body::from(text));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use axum::body::Body;
    use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};

    use super::{is_json_type, read_body};
    use crate::web::WebGuard;

    #[test]
    fn only_the_json_essence_is_json() {
        for json in [
            "application/json",
            "application/json; charset=utf-8",
            "Application/JSON;charset=UTF-8",
            " application/json ",
        ] {
            assert!(is_json_type(json), "{json}");
        }
        for other in [
            "application/json-x",
            "application/jsonx; charset=utf-8",
            "text/plain",
            "text/plain; application/json",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x",
            "application/vnd.api+json",
            "",
        ] {
            assert!(!is_json_type(other), "{other}");
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_body_that_never_ends_gets_408_and_closes_the_connection() {
        let body = Body::from_stream(futures_util::stream::pending::<
            Result<Vec<u8>, std::io::Error>,
        >());
        let refused = read_body(body, 1024, Duration::from_secs(30), "WebGuard")
            .await
            .unwrap_err();
        assert_eq!(refused.status(), StatusCode::REQUEST_TIMEOUT);
        assert_eq!(refused.headers()[header::CONNECTION], "close");
    }

    #[tokio::test]
    async fn a_body_over_the_bound_gets_413_one_within_it_is_read() {
        let refused = read_body(
            Body::from(vec![b'x'; 11]),
            10,
            Duration::from_secs(1),
            "WebGuard",
        )
        .await
        .unwrap_err();
        assert_eq!(refused.status(), StatusCode::PAYLOAD_TOO_LARGE);
        let read = read_body(Body::from("{}"), 10, Duration::from_secs(1), "WebGuard").await;
        assert_eq!(read.unwrap(), "{}");
    }

    async fn text_of(response: axum::response::Response) -> String {
        let bytes = axum::body::to_bytes(response.into_body(), 4096)
            .await
            .unwrap();
        String::from_utf8(bytes.to_vec()).unwrap()
    }

    #[tokio::test]
    async fn refusals_name_the_setter_of_the_configuration_in_use() {
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, HeaderValue::from_static("evil.example:8080"));
        let uri = Uri::from_static("/agui");
        let refused = WebGuard::new().refusal(&uri, &headers).unwrap();
        assert_eq!(refused.status(), StatusCode::FORBIDDEN);
        assert!(text_of(refused).await.contains("WebGuard::allowed_hosts"));
        let named = WebGuard::new()
            .named("HttpOptions")
            .refusal(&uri, &headers)
            .unwrap();
        assert_eq!(named.status(), StatusCode::FORBIDDEN);
        assert!(text_of(named).await.contains("HttpOptions::allowed_hosts"));
        headers.insert(header::HOST, HeaderValue::from_static("127.0.0.1:8080"));
        headers.insert(header::ORIGIN, HeaderValue::from_static("null"));
        let null = WebGuard::new().refusal(&uri, &headers).unwrap();
        assert_eq!(null.status(), StatusCode::FORBIDDEN);
        assert!(text_of(null).await.contains("WebGuard::allowed_origins"));
        let opened = WebGuard::new().any_host().any_origin();
        headers.insert(header::HOST, HeaderValue::from_static("evil.example"));
        assert!(opened.refusal(&uri, &headers).is_none());
    }
}
