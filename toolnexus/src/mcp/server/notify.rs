//! The MCP server's [`Caller`]: a running tool's progress, log lines and sampling requests
//! sent to the client that called it.
//!
//! - progress: `notifications/progress` for the request's `progressToken`, when the client
//!   gave one (without a token nobody asked, and nothing is sent);
//! - log lines: `notifications/message`, at or above the level the session's
//!   `logging/setLevel` asked for ([`DEFAULT_LOG_LEVEL`] until it does);
//! - sampling: `sampling/createMessage`, to a client that declared `sampling`.
//!
//! MCP 2026-07-28 deprecates logging and sampling (SEP-2577): a client that negotiates it
//! gets no log notifications, and sampling is [`SamplingError::Unsupported`] for it.
//! Clients on earlier versions get both.
//!
//! Reports are synchronous for the tool; they go through a queue to one forwarding task
//! per call, started at the first report, which the call drains before its result is
//! sent, so every notification comes before the response, in order.

// The SDK marks logging and sampling deprecated (SEP-2577); they are served on purpose,
// to the clients on the protocol versions that have them.
#![allow(deprecated)]

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::RoleServer;
use rmcp::model::{
    CreateMessageRequestParams, LoggingLevel, LoggingMessageNotificationParam,
    ProgressNotificationParam, ProgressToken, ProtocolVersion, SamplingMessage,
};
use rmcp::service::{Peer, RequestContext};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::tool::caller::{LogLevel, Sampled, Sampling, SamplingError, SamplingRole};
use crate::tool::context::Caller;
use crate::tool::context::Context;
use crate::tool::handler::BoxFuture;

/// The level log lines are sent at until the client's `logging/setLevel` says otherwise.
pub const DEFAULT_LOG_LEVEL: LogLevel = LogLevel::Info;

/// The logger name log notifications carry.
const LOGGER: &str = "toolnexus";

/// One session's state: the log level its client set. A fresh one per MCP session.
#[derive(Clone, Default)]
pub(super) struct SessionLevel(Arc<AtomicU8>);

const UNSET: u8 = 0;

impl SessionLevel {
    pub(super) fn set_level(&self, level: LogLevel) {
        self.0.store(level as u8 + 1, Ordering::Relaxed);
    }

    fn level(&self) -> LogLevel {
        match self.0.load(Ordering::Relaxed) {
            UNSET => DEFAULT_LOG_LEVEL,
            n => LogLevel::ALL[usize::from(n - 1).min(LogLevel::ALL.len() - 1)],
        }
    }
}

pub(crate) fn log_level(level: LoggingLevel) -> LogLevel {
    match level {
        LoggingLevel::Debug => LogLevel::Debug,
        LoggingLevel::Info => LogLevel::Info,
        LoggingLevel::Notice => LogLevel::Notice,
        LoggingLevel::Warning => LogLevel::Warning,
        LoggingLevel::Error => LogLevel::Error,
        LoggingLevel::Critical => LogLevel::Critical,
        LoggingLevel::Alert => LogLevel::Alert,
        LoggingLevel::Emergency => LogLevel::Emergency,
    }
}

fn logging_level(level: LogLevel) -> LoggingLevel {
    match level {
        LogLevel::Debug => LoggingLevel::Debug,
        LogLevel::Info => LoggingLevel::Info,
        LogLevel::Notice => LoggingLevel::Notice,
        LogLevel::Warning => LoggingLevel::Warning,
        LogLevel::Error => LoggingLevel::Error,
        LogLevel::Critical => LoggingLevel::Critical,
        LogLevel::Alert => LoggingLevel::Alert,
        LogLevel::Emergency => LoggingLevel::Emergency,
    }
}

enum Note {
    Progress(ProgressNotificationParam),
    Log(LoggingMessageNotificationParam),
}

/// The caller of one `tools/call`.
pub(super) struct McpCaller {
    peer: Peer<RoleServer>,
    progress_token: Option<ProgressToken>,
    session: SessionLevel,
    /// False for clients on 2026-07-28 or later, which have no logging or sampling.
    legacy: bool,
    sampling: bool,
    queue: Mutex<Option<(mpsc::UnboundedSender<Note>, JoinHandle<()>)>>,
}

impl McpCaller {
    pub(super) fn new(request: &RequestContext<RoleServer>, session: &SessionLevel) -> Arc<Self> {
        let legacy = request
            .protocol_version()
            .is_none_or(|version| version < ProtocolVersion::V_2026_07_28);
        let sampling = request
            .client_capabilities()
            .is_some_and(|capabilities| capabilities.sampling.is_some());
        Arc::new(McpCaller {
            peer: request.peer.clone(),
            progress_token: request.meta.get_progress_token(),
            session: session.clone(),
            legacy,
            sampling,
            queue: Mutex::new(None),
        })
    }

    fn send(&self, note: Note) {
        let mut queue = self.queue.lock().unwrap_or_else(PoisonError::into_inner);
        let (tx, _) = queue.get_or_insert_with(|| {
            let (tx, mut rx) = mpsc::unbounded_channel();
            let peer = self.peer.clone();
            let task = tokio::spawn(async move {
                while let Some(note) = rx.recv().await {
                    let sent = match note {
                        Note::Progress(params) => peer.notify_progress(params).await,
                        Note::Log(params) => peer.notify_logging_message(params).await,
                    };
                    if let Err(error) = sent {
                        tracing::debug!(%error, "MCP: a tool's notification was not sent");
                    }
                }
            });
            (tx, task)
        });
        let _ = tx.send(note);
    }

    /// Waits until every report of the call has been sent: call before the result is.
    pub(super) async fn drain(&self) {
        let queue = self
            .queue
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some((tx, task)) = queue {
            drop(tx);
            let _ = task.await;
        }
    }
}

impl Caller for McpCaller {
    fn progress(&self, _ctx: &Context, done: f64, total: Option<f64>, message: Option<&str>) {
        let Some(token) = &self.progress_token else {
            return;
        };
        let mut params = ProgressNotificationParam::new(token.clone(), done);
        params.total = total;
        params.message = message.map(str::to_owned);
        self.send(Note::Progress(params));
    }

    fn log(&self, _ctx: &Context, level: LogLevel, message: &str) {
        if !self.legacy || level < self.session.level() {
            return;
        }
        let params =
            LoggingMessageNotificationParam::new(logging_level(level), Value::from(message))
                .with_logger(LOGGER);
        self.send(Note::Log(params));
    }

    fn sample<'a>(
        &'a self,
        _ctx: &'a Context,
        request: Sampling,
    ) -> BoxFuture<'a, Result<Sampled, SamplingError>> {
        Box::pin(async move {
            if !self.legacy {
                return Err(SamplingError::Unsupported(
                    "the MCP client is on protocol 2026-07-28 or later, which deprecates sampling (SEP-2577)".to_owned(),
                ));
            }
            if !self.sampling {
                return Err(SamplingError::Unsupported(
                    "the MCP client did not declare the `sampling` capability".to_owned(),
                ));
            }
            let messages = request
                .messages
                .into_iter()
                .map(|message| match message.role {
                    SamplingRole::User => SamplingMessage::user_text(message.text),
                    SamplingRole::Assistant => SamplingMessage::assistant_text(message.text),
                })
                .collect();
            let mut params = CreateMessageRequestParams::new(messages, request.max_tokens);
            params.system_prompt = request.system;
            params.temperature = request.temperature;
            // Sent before any queued notification would be out of order: drain first.
            self.drain().await;
            let result = self
                .peer
                .create_message(params)
                .await
                .map_err(|error| SamplingError::Failed(format!("the MCP client: {error}")))?;
            let text = result
                .message
                .content
                .iter()
                .filter_map(|block| block.as_text().map(|text| text.text.as_str()))
                .collect::<Vec<_>>()
                .join("");
            Ok(Sampled {
                text,
                model: Some(result.model),
                stop_reason: result.stop_reason,
            })
        })
    }
}
