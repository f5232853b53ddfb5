//! The 2025-03-26 fallback for authorization server metadata: a server of that revision
//! stands for its own authorization server, and may publish metadata whose `issuer` is
//! not its origin (`https://mcp.example.com/oauth`), which RFC 8414's issuer check (the
//! SDK's defence against mix-up attacks) refuses. Such metadata is used only when it
//! cannot send the login anywhere else: its issuer and every endpoint it names are on the
//! MCP server's own origin. It is read within [`TIMEOUT`] and [`CAP`].

use std::time::Duration;

use rmcp::transport::auth::{AuthError, AuthorizationMetadata};
use url::Url;

/// How long reading the metadata may take, body included.
pub(super) const TIMEOUT: Duration = Duration::from_secs(10);
/// The largest metadata document read (as the SDK's own metadata reads).
pub(super) const CAP: usize = 1024 * 1024;

/// The metadata at `server`'s `/.well-known/oauth-authorization-server`, after the SDK
/// refused it for its issuer (`mismatch`), if it names nothing off the server's origin;
/// otherwise why not, in words for the user.
pub(super) async fn fallback(
    server: &str,
    mismatch: &AuthError,
) -> Result<AuthorizationMetadata, String> {
    let refused = |why: String| {
        format!(
            "the authorization server metadata failed the issuer check ({mismatch}), and the \
             2025-03-26 fallback (metadata on the MCP server's own origin) does not apply: {why}"
        )
    };
    let server = Url::parse(server).map_err(|e| refused(format!("the server URL: {e}")))?;
    let mut url = server.clone();
    url.set_path("/.well-known/oauth-authorization-server");
    url.set_query(None);
    url.set_fragment(None);
    let body = match tokio::time::timeout(TIMEOUT, fetch(&url)).await {
        Ok(body) => body.map_err(|why| refused(format!("{url}: {why}")))?,
        Err(_) => {
            return Err(refused(format!(
                "{url} did not answer within {}s",
                TIMEOUT.as_secs()
            )));
        }
    };
    let metadata: AuthorizationMetadata = serde_json::from_slice(&body)
        .map_err(|e| refused(format!("{url} is not authorization server metadata: {e}")))?;
    check(&server, &metadata).map_err(refused)?;
    Ok(metadata)
}

/// The body at `url`, at most [`CAP`] bytes; no redirect is followed.
async fn fetch(url: &Url) -> Result<Vec<u8>, String> {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| format!("could not set up the HTTP client: {e}"))?;
    let mut response = client
        .get(url.clone())
        .header(reqwest::header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(|e| e.without_url().to_string())?;
    if !response.status().is_success() {
        return Err(format!("answered {}", response.status()));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| e.without_url().to_string())?
    {
        if body.len() + chunk.len() > CAP {
            return Err(format!("the document is larger than {} MiB", CAP >> 20));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// Whether the issuer and every endpoint of `metadata` are on `server`'s origin.
fn check(server: &Url, metadata: &AuthorizationMetadata) -> Result<(), String> {
    let origin = server.origin();
    let Some(issuer) = &metadata.issuer else {
        return Err("it names no issuer".to_owned());
    };
    let named = [
        ("issuer", Some(issuer)),
        (
            "authorization_endpoint",
            Some(&metadata.authorization_endpoint),
        ),
        ("token_endpoint", Some(&metadata.token_endpoint)),
        (
            "registration_endpoint",
            metadata.registration_endpoint.as_ref(),
        ),
        ("jwks_uri", metadata.jwks_uri.as_ref()),
    ];
    for (field, value) in named {
        let Some(value) = value else { continue };
        let on = Url::parse(value).map(|url| url.origin());
        if on.as_ref() != Ok(&origin) {
            return Err(format!(
                "its `{field}` ({value}) is on another origin than the MCP server ({}); \
                 not logging in with it",
                origin.ascii_serialization()
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metadata(issuer: &str, authorize: &str, token: &str) -> AuthorizationMetadata {
        serde_json::from_value(serde_json::json!({
            "issuer": issuer,
            "authorization_endpoint": authorize,
            "token_endpoint": token,
        }))
        .unwrap()
    }

    #[test]
    fn only_metadata_on_the_servers_own_origin_is_used() {
        let server = Url::parse("https://mcp.example.com/mcp").unwrap();
        let own = "https://mcp.example.com";
        let good = metadata(
            &format!("{own}/oauth"),
            &format!("{own}/oauth/authorize"),
            &format!("{own}/oauth/token"),
        );
        assert!(check(&server, &good).is_ok());
        for (issuer, authorize, token, field) in [
            (
                "https://idp.example.com",
                "https://idp.example.com/a",
                "https://mcp.example.com/t",
                "issuer",
            ),
            (
                "https://mcp.example.com/o",
                "https://idp.example.com/a",
                "https://mcp.example.com/t",
                "authorization_endpoint",
            ),
            (
                "https://mcp.example.com/o",
                "https://mcp.example.com/a",
                "http://mcp.example.com/t",
                "token_endpoint",
            ),
            (
                "https://mcp.example.com:8443/o",
                "https://mcp.example.com/a",
                "https://mcp.example.com/t",
                "issuer",
            ),
            (
                "https://mcp.example.com/o",
                "not a url",
                "https://mcp.example.com/t",
                "authorization_endpoint",
            ),
        ] {
            let error = check(&server, &metadata(issuer, authorize, token)).unwrap_err();
            assert!(error.contains(&format!("`{field}`")), "{error}");
        }
        let mut no_issuer = good;
        no_issuer.issuer = None;
        assert!(check(&server, &no_issuer).is_err());
    }
}
