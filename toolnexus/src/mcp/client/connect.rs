//! Where a server is and how to reach it: a child process over stdio, or streamable HTTP.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use axum::http::{HeaderName, HeaderValue};
use rmcp::RoleClient;
use rmcp::model::ProtocolVersion;
use rmcp::service::{ClientLifecycleMode, ClientServiceExt as _, Peer, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};

use super::error::McpClientError;
use super::handler::Responder;

/// What the child's standard error goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stderr {
    Inherit,
    Null,
}

#[derive(Clone)]
pub(super) enum Endpoint {
    Stdio {
        program: OsString,
        args: Vec<OsString>,
        env: Vec<(OsString, OsString)>,
        cwd: Option<PathBuf>,
        stderr: Stderr,
    },
    Http {
        url: String,
        headers: HashMap<HeaderName, HeaderValue>,
        bearer: Option<String>,
        /// The first invalid header given, reported when connecting.
        invalid: Option<String>,
        /// How to log in, when the server requires it, and the login once made.
        #[cfg(feature = "mcp-auth")]
        oauth: Option<Box<OAuthLogin>>,
    },
}

/// Header values and tokens are secrets: `Debug` shows header names only.
impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Endpoint::Stdio {
                program,
                args,
                cwd,
                stderr,
                env,
            } => f
                .debug_struct("Stdio")
                .field("program", program)
                .field("args", args)
                .field("env", &env.iter().map(|(k, _)| k).collect::<Vec<_>>())
                .field("cwd", cwd)
                .field("stderr", stderr)
                .finish(),
            Endpoint::Http {
                url,
                headers,
                bearer,
                ..
            } => {
                let mut s = f.debug_struct("Http");
                s.field("url", url)
                    .field("headers", &headers.keys().collect::<Vec<_>>())
                    .field("bearer", &bearer.as_ref().map(|_| "[redacted]"));
                #[cfg(feature = "mcp-auth")]
                if let Endpoint::Http { oauth, .. } = self {
                    s.field("oauth", &oauth.as_ref().map(|login| &login.0));
                }
                s.finish()
            }
        }
    }
}

#[cfg(feature = "mcp-auth")]
use super::auth::Login;
use super::opening::{Opening, Standalone, transport_client};

/// The longest a new HTTP connection waits for its session's standalone stream to be
/// answered; past it, the connection is handed out anyway (the stream may still open).
const STANDALONE_WAIT: Duration = Duration::from_secs(5);

/// An endpoint's OAuth configuration, and the login made from it at the first connection
/// (shared by the builder's clones).
#[cfg(feature = "mcp-auth")]
pub(super) type OAuthLogin = (super::auth::OAuth, Arc<tokio::sync::OnceCell<Arc<Login>>>);

impl Endpoint {
    /// How errors name the server before it has told its own name.
    pub(super) fn label(&self) -> String {
        match self {
            Endpoint::Stdio { program, args, .. } => {
                let mut line = program.to_string_lossy().into_owned();
                for arg in args {
                    line.push(' ');
                    line.push_str(&arg.to_string_lossy());
                }
                format!("`{line}`")
            }
            Endpoint::Http { url, .. } => format!("at {url}"),
        }
    }

    /// Starts (or reaches) the server and runs the `initialize` handshake, within `limit`.
    pub(super) async fn open(
        &self,
        handler: Responder,
        limit: Duration,
        latest: bool,
    ) -> Result<RunningService<RoleClient, Responder>, McpClientError> {
        let label = self.label();
        // `server/discover` first (MCP 2026-07-28), `initialize` for servers before it.
        let lifecycle = || match latest {
            true => ClientLifecycleMode::Auto {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                legacy_version: None,
            },
            false => ClientLifecycleMode::Initialize,
        };
        let standalone = std::sync::OnceLock::<Standalone>::new();
        let handshake = async {
            match self {
                Endpoint::Stdio {
                    program,
                    args,
                    env,
                    cwd,
                    stderr,
                } => {
                    let mut command = tokio::process::Command::new(program);
                    command.args(args).kill_on_drop(true);
                    command.envs(env.iter().map(|(k, v)| (k, v)));
                    if let Some(dir) = cwd {
                        command.current_dir(dir);
                    }
                    let stderr = match stderr {
                        Stderr::Inherit => Stdio::inherit(),
                        Stderr::Null => Stdio::null(),
                    };
                    let (transport, _) = TokioChildProcess::builder(command)
                        .stderr(stderr)
                        .spawn()
                        .map_err(|source| McpClientError::Spawn {
                            command: label.trim_matches('`').to_owned(),
                            source,
                        })?;
                    handler
                        .serve_with_lifecycle(transport, lifecycle())
                        .await
                        .map_err(|error| McpClientError::Connect {
                            server: label.clone(),
                            message: error.to_string(),
                        })
                }
                Endpoint::Http {
                    url,
                    headers,
                    bearer,
                    invalid,
                    ..
                } => {
                    if let Some(message) = invalid {
                        return Err(McpClientError::Config {
                            message: message.clone(),
                        });
                    }
                    let mut config = StreamableHttpClientTransportConfig::with_uri(url.as_str())
                        .custom_headers(headers.clone());
                    if let Some(token) = bearer {
                        config = config.auth_header(token.clone());
                    }
                    // The connection is handed out once the session's standalone stream
                    // is answered (`opening.rs`).
                    #[cfg(feature = "mcp-auth")]
                    if let Some(login) = self.login().await? {
                        let client =
                            Opening::new(login.client.clone()).with_login(Arc::clone(&login));
                        let transport =
                            StreamableHttpClientTransport::with_client(client.clone(), config);
                        let running = handler.serve_with_lifecycle(transport, lifecycle()).await;
                        let _ = standalone.set(client.standalone());
                        return running.map_err(|error| match login.take_failure() {
                            Some(message) => McpClientError::Authorization {
                                server: label.clone(),
                                message,
                            },
                            None => McpClientError::Connect {
                                server: label.clone(),
                                message: http_hint(url, &error.to_string()),
                            },
                        });
                    }
                    let client = Opening::new(transport_client().map_err(|message| {
                        McpClientError::Connect {
                            server: label.clone(),
                            message,
                        }
                    })?);
                    let transport =
                        StreamableHttpClientTransport::with_client(client.clone(), config);
                    let running = handler.serve_with_lifecycle(transport, lifecycle()).await;
                    let _ = standalone.set(client.standalone());
                    running.map_err(|error| {
                        if error.auth_challenge().is_some() {
                            return McpClientError::Authorization {
                                server: label.clone(),
                                message: needs_login(bearer.is_some()),
                            };
                        }
                        McpClientError::Connect {
                            server: label.clone(),
                            message: http_hint(url, &error.to_string()),
                        }
                    })
                }
            }
        };
        let running = match tokio::time::timeout(limit, handshake).await {
            Ok(result) => result?,
            Err(_) => {
                return Err(McpClientError::Timeout {
                    server: label,
                    what: "initialize".to_owned(),
                    after: limit,
                });
            }
        };
        if let Some(standalone) = standalone.get() {
            standalone.wait(STANDALONE_WAIT).await;
        }
        Ok(running)
    }
}

impl Endpoint {
    /// The login of an HTTP endpoint with OAuth, made at the first connection.
    #[cfg(feature = "mcp-auth")]
    pub(super) async fn login(&self) -> Result<Option<Arc<Login>>, McpClientError> {
        let Endpoint::Http {
            url,
            oauth: Some(login),
            ..
        } = self
        else {
            return Ok(None);
        };
        let (oauth, cell) = &**login;
        cell.get_or_try_init(|| Login::new(url, oauth.clone()))
            .await
            .map(|login| Some(Arc::clone(login)))
            .map_err(|message| McpClientError::Authorization {
                server: self.label(),
                message,
            })
    }

    /// The login of an HTTP endpoint, if one was made already.
    #[cfg(feature = "mcp-auth")]
    pub(super) fn made_login(&self) -> Option<Arc<Login>> {
        match self {
            Endpoint::Http {
                oauth: Some(login), ..
            } => login.1.get().cloned(),
            _ => None,
        }
    }
}

/// The error for a server that answered `401` to a client without a login.
fn needs_login(had_token: bool) -> String {
    let hint = if cfg!(feature = "mcp-auth") {
        "give the builder a login with `McpClientBuilder::oauth`"
    } else {
        "turn on toolnexus's `mcp-auth` feature and give the builder a login with `McpClientBuilder::oauth`"
    };
    if had_token {
        format!("the server rejected the bearer token (HTTP 401); {hint}, or a valid token")
    } else {
        format!("the server requires a login (HTTP 401) and none was configured; {hint}")
    }
}

/// Adds the fix to an error that an `https://` URL gets from a build without TLS.
fn http_hint(url: &str, message: &str) -> String {
    if url.starts_with("https://") && !message.is_empty() {
        format!(
            "{message} (for https:// URLs, TLS must be enabled: add `reqwest = {{ version = \"0.13\", features = [\"rustls\"] }}` to your Cargo.toml)"
        )
    } else {
        message.to_owned()
    }
}

/// Checks one HTTP header given to the builder.
pub(super) fn header(name: &str, value: &str) -> Result<(HeaderName, HeaderValue), String> {
    let parsed_name = HeaderName::try_from(name)
        .map_err(|e| format!("invalid HTTP header name `{name}`: {e}"))?;
    let parsed_value = HeaderValue::try_from(value)
        .map_err(|e| format!("invalid value for HTTP header `{name}`: {e}"))?;
    Ok((parsed_name, parsed_value))
}

/// The connection of one client: reached on every call, made again when it was lost.
impl super::Shared {
    /// The live connection's peer, connecting (again) first when there is none.
    pub(super) async fn peer(&self) -> Result<Peer<RoleClient>, McpClientError> {
        let connection = self.connection.lock().await;
        if let Some(service) = connection.as_ref() {
            if !service.is_closed() && !service.peer().is_transport_closed() {
                return Ok(service.peer().clone());
            }
            if !self.options.reconnect {
                return Err(McpClientError::Connect {
                    server: self.server(),
                    message: "the connection closed, and reconnecting is turned off".to_owned(),
                });
            }
        }
        // Boxed: connecting is rare, and its future is large for every call to carry.
        Box::pin(self.reconnect(connection)).await
    }

    async fn reconnect(
        &self,
        mut connection: tokio::sync::MutexGuard<'_, Option<RunningService<RoleClient, Responder>>>,
    ) -> Result<Peer<RoleClient>, McpClientError> {
        *connection = None; // Drops the old connection (and kills its child) first.
        let handler = Responder {
            routing: Arc::clone(&self.routing),
        };
        let service = self
            .endpoint
            .open(handler, self.options.connect_timeout, self.options.latest)
            .await?;
        if let Some(info) = service.peer().peer_info()
            && let Some(server) = &info.server_info
        {
            let _ = self.info.set((server.name.clone(), server.version.clone()));
        }
        self.connections
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let peer = service.peer().clone();
        *connection = Some(service);
        Ok(peer)
    }
}
