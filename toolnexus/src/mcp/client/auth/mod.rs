//! MCP authorization (OAuth 2.1) for [`McpClient`](super::McpClient): how the client logs
//! in to a server that requires it ([`OAuth`]), who completes the user's part of a login
//! ([`AuthorizationHandler`]), and where the tokens are kept ([`TokenStore`]).
//!
//! The protocol work is the official SDK's (`rmcp`'s `auth` support): protected resource
//! metadata from the `WWW-Authenticate` challenge (RFC 9728), authorization server
//! metadata (RFC 8414, OpenID Connect discovery as the fallback), pre-registration,
//! client ID metadata documents or dynamic registration (RFC 7591), PKCE, resource
//! indicators (RFC 8707), scope selection, refresh, step-up on `insufficient_scope`, and
//! the client-credentials and enterprise-managed grants. This module decides when to log
//! in and turns every failure into an error that says what went wrong.

mod flow;
mod http;
mod metadata;
mod tokens;

use std::fmt;
use std::sync::Arc;

use futures_util::future::BoxFuture;

pub(super) use flow::Login;
pub(super) use http::send as with_login;
pub use tokens::{FileTokenStore, MemoryTokenStore, StoredCredentials, TokenStore};

/// Completes the login a suspension waited for, when `ctx` carries its answer.
pub(super) async fn answer_login(
    shared: &super::Shared,
    ctx: &crate::tool::context::Context,
) -> Option<Result<(), String>> {
    let answer = ctx.answer()?;
    shared.endpoint.made_login()?.answer(answer).await
}

/// The login suspension a failed call waits on, if its failure was a login it needs.
pub(super) fn login_request(shared: &super::Shared) -> Option<crate::Request> {
    shared.endpoint.made_login()?.pending_request()
}

/// The redirect URI a login uses unless [`OAuth::redirect_uri`] sets another.
pub const DEFAULT_REDIRECT_URI: &str = "http://localhost:8765/callback";

/// The default bound on step-up logins (see [`OAuth::max_step_ups`]): 2, so that a
/// request goes through at most three authorizations (its login and two step-ups).
pub const DEFAULT_MAX_STEP_UPS: u32 = 2;

/// Completes the user's part of an authorization-code login.
///
/// Given the authorization URL (the authorization server's page, with PKCE, state and
/// the requested scopes already in it), it returns the URL the server redirected to,
/// with the `code` and `state` in its query. A desktop host opens a browser and listens
/// on the redirect URI; a test completes it headlessly ([`HeadlessLogin`]). An `Err`
/// says why there is no redirect (the user closed the window, …); the connection or
/// call then fails with that reason.
///
/// Any `Fn(String) -> impl Future<Output = Result<String, String>>` is a handler.
pub trait AuthorizationHandler: Send + Sync + 'static {
    /// Takes the user through `url`; returns the redirect URL with the code.
    fn authorize(&self, url: String) -> BoxFuture<'static, Result<String, String>>;
}

impl<F, Fut> AuthorizationHandler for F
where
    F: Fn(String) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<String, String>> + Send + 'static,
{
    fn authorize(&self, url: String) -> BoxFuture<'static, Result<String, String>> {
        Box::pin(self(url))
    }
}

/// An [`AuthorizationHandler`] for authorization servers that approve without a user
/// (test servers, a pre-consented deployment): it requests the authorization URL
/// without following redirects and returns the redirect it gets.
#[derive(Debug, Clone, Copy, Default)]
pub struct HeadlessLogin;

impl AuthorizationHandler for HeadlessLogin {
    fn authorize(&self, url: String) -> BoxFuture<'static, Result<String, String>> {
        Box::pin(async move {
            let client = reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .map_err(|e| format!("could not build an HTTP client: {e}"))?;
            let response = client.get(&url).send().await.map_err(|e| {
                format!(
                    "the authorization endpoint could not be reached: {}",
                    e.without_url()
                )
            })?;
            let status = response.status();
            response
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
                .ok_or_else(|| {
                    format!("the authorization endpoint answered {status} without redirecting")
                })
        })
    }
}

/// The signing algorithm of a client assertion ([`OAuth::private_key_jwt`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum JwtAlgorithm {
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    Rs256,
    /// RSASSA-PKCS1-v1_5 with SHA-384.
    Rs384,
    /// RSASSA-PKCS1-v1_5 with SHA-512.
    Rs512,
    /// ECDSA on P-256 with SHA-256.
    Es256,
    /// ECDSA on P-384 with SHA-384.
    Es384,
}

impl JwtAlgorithm {
    /// The algorithm named `name` (`"ES256"`, `"RS256"`, …), if it is one of these.
    pub fn from_name(name: &str) -> Option<JwtAlgorithm> {
        Some(match name.to_ascii_uppercase().as_str() {
            "RS256" => JwtAlgorithm::Rs256,
            "RS384" => JwtAlgorithm::Rs384,
            "RS512" => JwtAlgorithm::Rs512,
            "ES256" => JwtAlgorithm::Es256,
            "ES384" => JwtAlgorithm::Es384,
            _ => return None,
        })
    }
}

/// A string that never shows in `Debug` output.
#[derive(Clone)]
pub(super) struct Secret(pub(super) String);

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

/// How the client obtains its tokens.
#[derive(Clone, Debug)]
pub(super) enum Grant {
    /// Authorization code with PKCE: a user logs in through the handler.
    Code,
    /// Client credentials with a client secret (SEP-1046).
    ClientSecret { client_id: String, secret: Secret },
    /// Client credentials with a signed JWT assertion (RFC 7523).
    PrivateKeyJwt {
        client_id: String,
        key_pem: Secret,
        algorithm: JwtAlgorithm,
    },
    /// Enterprise-managed authorization: an identity provider's ID token, exchanged for
    /// an ID-JAG, exchanged for an access token (SEP-990).
    Enterprise {
        id_token: Secret,
        idp_issuer: String,
        idp_token_endpoint: String,
        idp_client_id: String,
        client_id: String,
        client_secret: Secret,
    },
}

/// How an [`McpClient`](super::McpClient) logs in to a server that requires MCP
/// authorization; give it to [`McpClientBuilder::oauth`](super::McpClientBuilder::oauth).
///
/// The client logs in when the server first answers `401` (so a server that needs no
/// login costs nothing), keeps the tokens in the [token store](OAuth::token_store),
/// refreshes them when they expire or the server rejects them, and logs in again with
/// the wider scope when the server answers `403 insufficient_scope` (step-up).
///
/// ```no_run
/// use toolnexus::mcp::{McpClient, OAuth};
///
/// # async fn demo() -> Result<(), toolnexus::mcp::McpClientError> {
/// let client = McpClient::http("https://mcp.example.com/mcp")
///     .oauth(OAuth::new(|url: String| async move {
///         // Open `url` in a browser; return the redirect it lands on.
///         Err::<String, String>(format!("open {url} and paste the redirect"))
///     }))
///     .connect()
///     .await?;
/// # Ok(())
/// # }
/// ```
///
/// `Debug` output shows no secret (client secrets, keys, tokens).
#[derive(Clone)]
#[must_use = "an OAuth configuration does nothing until given to `McpClientBuilder::oauth`"]
pub struct OAuth {
    pub(super) grant: Grant,
    pub(super) handler: Option<Arc<dyn AuthorizationHandler>>,
    pub(super) redirect_uri: String,
    pub(super) client_name: String,
    pub(super) client_metadata_url: Option<String>,
    pub(super) client_id: Option<String>,
    pub(super) client_secret: Option<Secret>,
    pub(super) scopes: Vec<String>,
    pub(super) store: Arc<dyn TokenStore>,
    pub(super) max_step_ups: u32,
    pub(super) suspend: bool,
}

impl fmt::Debug for OAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuth")
            .field("grant", &self.grant)
            .field("handler", &self.handler.as_ref().map(|_| "…"))
            .field("redirect_uri", &self.redirect_uri)
            .field("client_name", &self.client_name)
            .field("client_metadata_url", &self.client_metadata_url)
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret)
            .field("scopes", &self.scopes)
            .field("max_step_ups", &self.max_step_ups)
            .field("suspend", &self.suspend)
            .finish_non_exhaustive()
    }
}

impl OAuth {
    fn with_grant(grant: Grant, handler: Option<Arc<dyn AuthorizationHandler>>) -> OAuth {
        OAuth {
            grant,
            handler,
            redirect_uri: DEFAULT_REDIRECT_URI.to_owned(),
            client_name: "toolnexus".to_owned(),
            client_metadata_url: None,
            client_id: None,
            client_secret: None,
            scopes: Vec::new(),
            store: Arc::new(MemoryTokenStore::default()),
            max_step_ups: DEFAULT_MAX_STEP_UPS,
            suspend: false,
        }
    }

    /// Authorization-code login (PKCE): `handler` takes the user through the
    /// authorization URL and returns the redirect with the code.
    pub fn new(handler: impl AuthorizationHandler) -> OAuth {
        OAuth::with_grant(Grant::Code, Some(Arc::new(handler)))
    }

    /// Authorization-code login with no handler: every login needed during a tool call
    /// becomes an `"authorization"` suspension (see [`OAuth::suspend_mid_run`]); one
    /// needed while connecting fails with [`McpClientError::Authorization`](super::McpClientError::Authorization).
    pub fn suspending() -> OAuth {
        let mut oauth = OAuth::with_grant(Grant::Code, None);
        oauth.suspend = true;
        oauth
    }

    /// Client credentials for a machine client, authenticated with a client secret
    /// (the `io.modelcontextprotocol/oauth-client-credentials` extension). No user, no
    /// handler.
    pub fn client_credentials(client_id: impl Into<String>, secret: impl Into<String>) -> OAuth {
        OAuth::with_grant(
            Grant::ClientSecret {
                client_id: client_id.into(),
                secret: Secret(secret.into()),
            },
            None,
        )
    }

    /// Client credentials for a machine client, authenticated with a JWT signed by
    /// `key_pem` (a PEM private key; RFC 7523 `private_key_jwt`).
    pub fn private_key_jwt(
        client_id: impl Into<String>,
        key_pem: impl Into<String>,
        algorithm: JwtAlgorithm,
    ) -> OAuth {
        OAuth::with_grant(
            Grant::PrivateKeyJwt {
                client_id: client_id.into(),
                key_pem: Secret(key_pem.into()),
                algorithm,
            },
            None,
        )
    }

    /// Enterprise-managed authorization (cross-app access): the user's ID token from the
    /// enterprise identity provider (`idp_issuer`, token endpoint `idp_token_endpoint`,
    /// where this client is `idp_client_id`) is exchanged for an ID-JAG, which the MCP
    /// server's authorization server (where this client is `client_id` with
    /// `client_secret`) exchanges for an access token.
    pub fn enterprise(
        id_token: impl Into<String>,
        idp_issuer: impl Into<String>,
        idp_token_endpoint: impl Into<String>,
        idp_client_id: impl Into<String>,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> OAuth {
        OAuth::with_grant(
            Grant::Enterprise {
                id_token: Secret(id_token.into()),
                idp_issuer: idp_issuer.into(),
                idp_token_endpoint: idp_token_endpoint.into(),
                idp_client_id: idp_client_id.into(),
                client_id: client_id.into(),
                client_secret: Secret(client_secret.into()),
            },
            None,
        )
    }

    /// The redirect URI registered for the login (default [`DEFAULT_REDIRECT_URI`]).
    pub fn redirect_uri(mut self, uri: impl Into<String>) -> Self {
        self.redirect_uri = uri.into();
        self
    }

    /// The client name sent in dynamic registration (default `"toolnexus"`).
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = name.into();
        self
    }

    /// The HTTPS URL of this client's metadata document: used as the client ID by
    /// authorization servers that support client ID metadata documents, instead of
    /// registering.
    pub fn client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.client_metadata_url = Some(url.into());
        self
    }

    /// A client registered beforehand with the authorization server (no registration at
    /// login), with its secret if it is a confidential client.
    pub fn preregistered(mut self, client_id: impl Into<String>, secret: Option<String>) -> Self {
        self.client_id = Some(client_id.into());
        self.client_secret = secret.map(Secret);
        self
    }

    /// The scopes to ask for. By default the client asks for the scope of the server's
    /// challenge, else the server's `scopes_supported`, else none.
    pub fn scopes<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Where the tokens (and the registered client ID) are kept: a
    /// [`MemoryTokenStore`] by default, a [`FileTokenStore`] to keep a login across
    /// restarts, or any [`TokenStore`] (a keyring, a database).
    pub fn token_store(mut self, store: impl TokenStore + 'static) -> Self {
        self.store = Arc::new(store);
        self
    }

    /// How many step-up logins one call may go through before the client gives up on a
    /// server that keeps answering `403 insufficient_scope` (default
    /// [`DEFAULT_MAX_STEP_UPS`]).
    pub fn max_step_ups(mut self, max: u32) -> Self {
        self.max_step_ups = max;
        self
    }

    /// Logins needed during a tool call (a token that expired for good, a step-up)
    /// become an `"authorization"` suspension of that call instead of going through the
    /// handler: the call's [`ToolResult`](crate::ToolResult) is pending on a
    /// [`Request`](crate::Request) whose `url` is the authorization URL. Answer it with
    /// the redirect URL as the answer's data, and the re-executed call completes the
    /// login and runs. Logins while connecting still use the handler.
    pub fn suspend_mid_run(mut self) -> Self {
        self.suspend = true;
        self
    }
}
