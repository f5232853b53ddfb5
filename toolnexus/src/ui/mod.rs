//! Runs a web page can drive (feature `ui`): [`ag_ui`], an [AG-UI](https://docs.ag-ui.com)
//! 1.0 endpoint whose interrupts are the runs' pending requests, answered by the next
//! run's `resume` entries; and [`ai_sdk`], the AI SDK's UI message stream, whose tool
//! approval parts are the same requests, answered by the chat's approval responses.
//!
//! The router speaks HTTP only: mount it in an axum application
//! (`Router::new().nest("/agui", toolnexus::ui::ag_ui(client.clone(), toolkit.clone()))
//! .nest("/chat", toolnexus::ui::ai_sdk(client, toolkit))`) and serve that
//! as you serve the rest. Each `POST` takes one `RunAgentInput` and answers with the run
//! as server-sent events. See the guide's "User interfaces" chapter.
//!
//! Each router is behind a [`WebGuard`](crate::web::WebGuard): by default it answers
//! only requests to a loopback host name from a loopback page (or from no page), with a
//! JSON body, so another site's page cannot start a run. [`UiOptions`] (with
//! [`ag_ui_with`] and [`ai_sdk_with`]) allows other hosts and origins, binds threads to
//! the app's signed-in users, and bounds what an endpoint keeps.

pub(crate) mod ag_ui;
mod ai_sdk;
#[cfg(feature = "mcp")]
mod apps;
mod durable;
mod options;
pub(crate) mod sse;
pub(crate) mod threads;

use std::fmt::Write as _;
use std::sync::Arc;

use axum::http::request::Parts;
use sha2::{Digest, Sha256};

use crate::agent::InMemoryConversations;
use crate::agent::stream::EventStream;
use crate::tool::request::Answer;

pub use ag_ui::{ag_ui, ag_ui_with};
pub use ai_sdk::{ai_sdk, ai_sdk_with};
#[cfg(feature = "mcp")]
pub use apps::{mcp_apps, mcp_apps_durable, mcp_apps_with};
pub use options::{DEFAULT_MAX_THREADS, DEFAULT_MAX_TRANSCRIPT_BYTES, UiOptions, User};

/// What an endpoint's requests share: the client and toolkit it runs, its threads'
/// conversations (the client's run store, else a bounded store of the endpoint's own),
/// and their interrupts.
pub(crate) struct Shared {
    pub(crate) client: crate::Client,
    pub(crate) toolkit: crate::Toolkit,
    /// The threads' conversations, when the endpoint keeps them (the client has no run
    /// store).
    conversations: Option<Arc<InMemoryConversations>>,
    pub(crate) threads: threads::Threads,
    user: Option<User>,
}

impl Shared {
    pub(crate) fn new(
        client: crate::Client,
        toolkit: crate::Toolkit,
        options: &UiOptions,
    ) -> Shared {
        let stored = durable::stored(&client);
        let (client, conversations) = if stored {
            (client, None)
        } else {
            let kept = Arc::new(InMemoryConversations::bounded(
                options.max_threads,
                options.max_transcript_bytes,
            ));
            (client.conversations(Arc::clone(&kept)), Some(kept))
        };
        Shared {
            client,
            toolkit,
            conversations,
            threads: threads::Threads::new(options.max_threads, stored),
            user: options.user.clone(),
        }
    }

    /// Who sent a request: the namespace of its thread ids.
    pub(crate) fn caller(&self, request: &Parts) -> Namespace {
        caller_of(self.user.as_ref(), request)
    }

    /// Why thread `key`'s conversation takes no more runs, if it grew too long.
    pub(crate) fn too_long(&self, key: &str) -> Option<threads::TooLong> {
        let refused = self.conversations.as_ref()?.refused(key)?;
        threads::TooLong::of(&refused)
    }

    /// A new run of `prompt` in thread `key`'s conversation (`key` must have no open
    /// interrupt): a run of its session when the client keeps its runs in a store, else
    /// of the conversation the endpoint keeps.
    pub(crate) fn fresh(&self, key: &str, prompt: String) -> Result<EventStream, NotStarted> {
        // (With a store, this replica's own interrupts: the store answers any of them.)
        if self.threads.has_open(key) {
            return Err(NotStarted::Open);
        }
        if let Some(too_long) = self.too_long(key) {
            return Err(NotStarted::TooLong(too_long));
        }
        Ok(self
            .client
            .run(prompt, &self.toolkit)
            .conversation(key)
            .stream())
    }

    /// Answers interrupt `id` of thread `key` with `given` (given the request's id) and
    /// streams its run on: in the store when the client keeps its runs in one, else the
    /// run parked here.
    pub(crate) async fn answer(
        &self,
        key: &str,
        id: &str,
        given: impl FnOnce(&str) -> Answer,
    ) -> Result<EventStream, NotStarted> {
        if durable::stored(&self.client) {
            let run = durable::answer(&self.client, key, id, given, &self.toolkit)
                .await
                .map_err(|(message, code)| NotStarted::Refused(message, code))?;
            // Answered in the store: no longer open here either.
            let _ = self.threads.take(key, id);
            return Ok(run);
        }
        let threads::ParkedRun { halted, .. } = self
            .threads
            .take(key, id)
            .map_err(|refused| NotStarted::Refused(refused.message(id), refused.code()))?;
        let request = halted.pending.clone().ok_or(NotStarted::NoRequest)?;
        let answer = given(&request.id);
        self.client
            .resume(halted, answer, &self.toolkit)
            .stream()
            .map_err(|e| NotStarted::Resume(format!("resume: {e}")))
    }
}

/// Why [`Shared::fresh`] or [`Shared::answer`] started no run; each endpoint words it in
/// its own terms.
#[derive(Debug)]
pub(crate) enum NotStarted {
    /// The thread has an open interrupt, which a new run does not answer.
    Open,
    /// The thread's transcript is past the endpoint's limit.
    TooLong(threads::TooLong),
    /// The interrupt cannot be answered (unknown, answered already, or the store refused
    /// it): the message and the AG-UI code.
    Refused(String, &'static str),
    /// The halted run has no request to answer.
    NoRequest,
    /// The run could not be resumed (the message says why).
    Resume(String),
}

/// Who sent a request, for an endpoint whose app has `user`s: the namespace of the ids
/// it hands out.
pub(crate) fn caller_of(user: Option<&User>, request: &Parts) -> Namespace {
    let Some(user) = user else {
        return Namespace(None);
    };
    let name = user(request).unwrap_or_default();
    let digest = Sha256::digest(name.as_bytes());
    let mut prefix = String::with_capacity(34);
    prefix.push('u');
    for byte in &digest[..16] {
        let _ = write!(prefix, "{byte:02x}");
    }
    prefix.push('/');
    Namespace(Some(prefix))
}

/// The namespace a request's thread ids live in: none without users, else the user's
/// (a digest of the name, fixed length, so no thread id of one user names another's).
#[derive(Debug, Clone)]
pub(crate) struct Namespace(Option<String>);

impl Namespace {
    /// The key of the caller's thread `thread`: the thread's id in the endpoint's map and
    /// its session's id in a run store.
    pub(crate) fn key(&self, thread: &str) -> String {
        match &self.0 {
            None => thread.to_owned(),
            Some(prefix) => format!("{prefix}{thread}"),
        }
    }
}

/// The AG-UI `CUSTOM` event's `name`, and the AI SDK data part's name (`data-…`), of an
/// MCP Apps view (see [`ag_ui`] and [`ai_sdk`]).
pub const VIEW_EVENT: &str = "mcp-app-view";

/// What a page needs to render an MCP Apps view beside call `call_id`: the view's page
/// and settings, the server it came from, the call's input and its MCP result (the
/// value of a [`VIEW_EVENT`]).
pub(crate) fn view_value(call_id: &str, view: &crate::tool::ToolView) -> serde_json::Value {
    serde_json::json!({
        "toolCallId": call_id,
        "uri": view.uri,
        "server": view.server,
        "toolName": view.tool,
        "html": view.html,
        "ui": view.ui,
        "toolInput": view.input,
        "toolResult": view.result,
    })
}

/// The router of an endpoint on `client` and `toolkit`: `run` at `POST /`, behind the
/// options' guard.
pub(crate) fn endpoint<H, T>(
    client: crate::Client,
    toolkit: crate::Toolkit,
    options: &UiOptions,
    run: H,
) -> axum::Router
where
    H: axum::handler::Handler<T, std::sync::Arc<Shared>>,
    T: 'static,
{
    let shared = std::sync::Arc::new(Shared::new(client, toolkit, options));
    let route = axum::Router::new().route("/", axum::routing::post(run));
    guarded(route.with_state(shared), options)
}

/// `router` (the endpoint's one route) behind the options' guard. The guard bounds the
/// body, so axum's own bound on it is lifted.
pub(crate) fn guarded(router: axum::Router, options: &UiOptions) -> axum::Router {
    crate::web::layer(
        router.layer(axum::extract::DefaultBodyLimit::disable()),
        options.guard.clone(),
    )
}
