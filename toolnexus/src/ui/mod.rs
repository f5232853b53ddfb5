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

mod ag_ui;
mod ai_sdk;
#[cfg(feature = "__store")]
mod durable;
mod sse;
mod threads;

pub use ag_ui::ag_ui;
pub use ai_sdk::ai_sdk;

/// What an endpoint's requests share: the client and toolkit it runs, and its threads.
pub(crate) struct Shared {
    pub(crate) client: crate::Client,
    pub(crate) toolkit: crate::Toolkit,
    pub(crate) threads: threads::Threads,
}
