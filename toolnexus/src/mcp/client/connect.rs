//! Where a server is and how to reach it: a child process over stdio, or streamable HTTP.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use axum::http::{HeaderName, HeaderValue};
use rmcp::RoleClient;
use rmcp::model::ProtocolVersion;
use rmcp::service::{ClientLifecycleMode, ClientServiceExt as _, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};

use super::error::McpClientError;
use super::handler::Handler;

/// What the child's standard error goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stderr {
    Inherit,
    Null,
}

#[derive(Debug, Clone)]
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
    },
}

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
        handler: Handler,
        limit: Duration,
        latest: bool,
    ) -> Result<RunningService<RoleClient, Handler>, McpClientError> {
        let label = self.label();
        // `server/discover` first (MCP 2026-07-28), `initialize` for servers before it.
        let lifecycle = || match latest {
            true => ClientLifecycleMode::Auto {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                legacy_version: None,
            },
            false => ClientLifecycleMode::Initialize,
        };
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
                    let transport = StreamableHttpClientTransport::from_config(config);
                    handler
                        .serve_with_lifecycle(transport, lifecycle())
                        .await
                        .map_err(|error| McpClientError::Connect {
                            server: label.clone(),
                            message: http_hint(url, &error.to_string()),
                        })
                }
            }
        };
        match tokio::time::timeout(limit, handshake).await {
            Ok(result) => result,
            Err(_) => Err(McpClientError::Timeout {
                server: label,
                what: "initialize".to_owned(),
                after: limit,
            }),
        }
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
