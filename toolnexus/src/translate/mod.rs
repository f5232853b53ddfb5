//! Single-turn translation: OpenAI's `messages`, `tools` and `tool_choice` in, exactly one
//! call to a [`Model`], OpenAI's shapes out (the toolnexus contract's `translate`).
//!
//! [`translate`] is toolnexus used as a wire-format translator, for a caller that owns
//! the conversation and runs the tools itself (the OpenAI function-calling posture: every
//! request carries the whole history, the earlier tool results included). There is no
//! loop, no tool execution and no state kept between calls; a [`Toolkit`](crate::Toolkit)
//! handed in is listed to the model and never run. When toolnexus should own the
//! conversation, use the [`Client`](crate::Client) loop instead.
//!
//! The request's messages become the transcript every provider already writes in its own
//! shape, so the provider decides the wire form:
//!
//! - **OpenAI** (`OpenAi`): the messages go out nearly as they came;
//! - **Anthropic**: an assistant turn's `tool_calls` become `tool_use` blocks (their
//!   `arguments` parsed back into objects), `tool` results become `tool_result` blocks
//!   keyed by their `tool_call_id` and merged into one user turn when consecutive, and
//!   `system` (and `developer`) messages are hoisted into `system`;
//! - **Gemini** and **OpenAI Responses**: the same, as `functionCall` /
//!   `functionResponse` parts with `systemInstruction`, and `function_call` /
//!   `function_call_output` items with `instructions`.
//!
//! The reply comes back as a [`TranslateResult`]: the text, every tool call in the
//! provider's order with its `arguments` as a JSON **string** (OpenAI's wire form), the
//! finish reason (`tool_calls` whenever the turn called a tool), the usage and the model.
//!
//! ```no_run
//! # #[cfg(feature = "anthropic")]
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use serde_json::json;
//! use toolnexus::providers::Anthropic;
//! use toolnexus::translate::{TranslateRequest, translate};
//!
//! let claude = Anthropic::from_env("claude-sonnet-4-5")?;
//! let request = TranslateRequest::new([
//!     json!({"role": "system", "content": "Be terse."}),
//!     json!({"role": "user", "content": "Weather in Chennai?"}),
//! ])
//! .tools([json!({"type": "function", "function": {
//!     "name": "get_weather",
//!     "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}
//! }})]);
//! let result = translate(&claude, &request).await?;
//! for call in &result.tool_calls {
//!     println!("{} {}", call.name, call.arguments); // get_weather {"city":"Chennai"}
//! }
//! # Ok(()) }
//! ```
//!
//! The providers guide has a section on it, with every difference from the contract's
//! Python port and why.

mod error;
mod inbound;
mod request;
mod result;
#[cfg(test)]
mod tests;

use std::panic::AssertUnwindSafe;

use futures_util::FutureExt as _;

use crate::agent::hooks::{HookFuture, TurnDecision, TurnStart};
use crate::model::Model;
use crate::model::request::ModelRequest;

pub use error::TranslateError;
pub use request::TranslateRequest;
pub use result::{TranslateResult, TranslatedCall};

/// Translates `request` through one call to `model`: no loop, no tool runs, nothing kept.
///
/// The request's `messages`, `tools` and `tool_choice` are read as OpenAI writes them
/// (see [`TranslateRequest`]); its toolkit is listed before its `tools` and never run.
/// `model` is asked once, with [`Model::complete`] and the request's settings (its
/// `max_tokens` and `tool_choice` over them), so a provider's own settings, retries and
/// timeouts apply as in the loop, and the turn has its `chat` span. The request's hooks
/// see the turn: [`before_turn`](crate::agent::Hooks::before_turn) and
/// [`after_turn`](crate::agent::Hooks::after_turn) once each (turn 1); the tool hooks never
/// fire, since no tool runs. A before-turn hook's abort fails the call
/// ([`TranslateError::Hook`]); what it replaces is not applied (the request is the turn).
///
/// # Errors
///
/// [`TranslateError::Request`] for a request that cannot be translated, naming the
/// place (`messages[2].tool_calls[0].id`) before anything is sent;
/// [`TranslateError::Model`] when the model fails (a refused setting, a network error,
/// an error response); [`TranslateError::Hook`] when a hook panics or aborts.
pub async fn translate(
    model: &dyn Model,
    request: &TranslateRequest,
) -> Result<TranslateResult, TranslateError> {
    let transcript = inbound::transcript(&request.messages, request.system.as_deref())?;
    let toolkit = inbound::toolkit(request.toolkit.as_ref(), &request.tools)?;
    inbound::check_listing(model, &toolkit)?;
    let mut settings = request.settings.clone();
    if let Some(choice) = inbound::tool_choice(request.tool_choice.as_ref())? {
        settings.tool_choice = Some(choice);
    }
    if let Some(max_tokens) = request.max_tokens.filter(|n| *n > 0) {
        settings.max_tokens = Some(max_tokens);
    }
    for hooks in &request.hooks {
        let start = TurnStart {
            turn: 1,
            model: model.describe().name,
            messages: &transcript,
            tools: &toolkit,
        };
        let decided = guarded(|| hooks.before_turn(start))
            .await
            .ok_or_else(|| TranslateError::Hook("a before-turn hook panicked".to_owned()))?;
        if let TurnDecision::Abort { reason } = decided {
            return Err(TranslateError::Hook(format!(
                "a before-turn hook aborted the call: {reason}"
            )));
        }
    }
    let turn = model.complete(ModelRequest::new(&transcript, &toolkit).with_settings(&settings));
    let reply = crate::agent::trace::chat(model, &settings, None, turn)
        .await
        .map_err(TranslateError::Model)?;
    for hooks in &request.hooks {
        guarded(|| hooks.after_turn(1, &reply))
            .await
            .ok_or_else(|| TranslateError::Hook("an after-turn hook panicked".to_owned()))?;
    }
    Ok(TranslateResult::from_reply(
        reply,
        model.describe().name.unwrap_or_default(),
    ))
}

/// Runs a hook, catching a panic in its synchronous part or in its future (`None`).
async fn guarded<'a, T>(hook: impl FnOnce() -> HookFuture<'a, T>) -> Option<T> {
    let future = std::panic::catch_unwind(AssertUnwindSafe(hook)).ok()?;
    AssertUnwindSafe(future).catch_unwind().await.ok()
}
