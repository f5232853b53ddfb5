//! Runs a web page can drive (feature `ui`): [`ag_ui`], an [AG-UI](https://docs.ag-ui.com)
//! 1.0 endpoint whose interrupts are the runs' pending requests, answered by the next
//! run's `resume` entries.
//!
//! The router speaks HTTP only: mount it in an axum application
//! (`Router::new().nest("/agui", toolnexus::ui::ag_ui(client, toolkit))`) and serve that
//! as you serve the rest. Each `POST` takes one `RunAgentInput` and answers with the run
//! as server-sent events. See the guide's "User interfaces" chapter.

mod ag_ui;
mod sse;
mod threads;

pub use ag_ui::ag_ui;
