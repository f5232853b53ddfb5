//! [`TranslateResult`]: one turn, in OpenAI's shapes.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::model::message::ToolCall;
use crate::model::{FinishReason, Reply, Usage};

/// The turn a [`translate`](super::translate) call got back, in OpenAI's shapes.
///
/// Serialized as the contract's result: `{"text", "toolCalls": [{"id", "name",
/// "arguments"}], "finishReason", "usage": {"prompt_tokens", "completion_tokens",
/// "total_tokens", …}, "model"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TranslateResult {
    /// The turn's text; empty when the model only called tools.
    pub text: String,
    /// Every tool call of the turn, in the provider's order.
    pub tool_calls: Vec<TranslatedCall>,
    /// Why the turn ended, in OpenAI's words: [`ToolCalls`](FinishReason::ToolCalls)
    /// whenever the turn called a tool, whatever the provider said; else
    /// [`Length`](FinishReason::Length) (the token cap), [`ContentFilter`](FinishReason::ContentFilter)
    /// (a refusal or the provider's filter) or [`Stop`](FinishReason::Stop). No other
    /// value is given.
    pub finish_reason: FinishReason,
    /// The tokens this call cost.
    pub usage: Usage,
    /// The model's name, as sent to the provider (empty when the model has none).
    pub model: String,
}

/// One tool call the model asked for, in OpenAI's terms.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TranslatedCall {
    /// The call's id: the caller's `tool` message answers it with this `tool_call_id`.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments as JSON **text** (OpenAI's wire form), as the provider gave them.
    pub arguments: String,
}

impl TranslatedCall {
    /// The call as an entry of an OpenAI assistant message's `tool_calls`:
    /// `{"id", "type": "function", "function": {"name", "arguments"}}`.
    pub fn to_openai(&self) -> Value {
        json!({
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        })
    }
}

impl From<ToolCall> for TranslatedCall {
    fn from(call: ToolCall) -> Self {
        TranslatedCall {
            id: call.id,
            name: call.name,
            arguments: call.arguments,
        }
    }
}

impl TranslateResult {
    pub(super) fn from_reply(reply: Reply, model: &str) -> Self {
        let finish_reason = finish_reason(!reply.tool_calls.is_empty(), reply.finish_reason);
        TranslateResult {
            text: reply.content.unwrap_or_default(),
            tool_calls: reply.tool_calls.into_iter().map(Into::into).collect(),
            finish_reason,
            usage: reply.usage,
            model: model.to_owned(),
        }
    }

    /// The turn as an OpenAI assistant message, ready for a Chat Completions response
    /// (`choices[0].message`) or the caller's next request: `{"role": "assistant",
    /// "content", "tool_calls"}`, `content` null when there is no text and `tool_calls`
    /// only when the model called tools.
    pub fn to_openai_message(&self) -> Value {
        let mut message = json!({
            "role": "assistant",
            "content": (!self.text.is_empty()).then_some(&self.text),
        });
        if !self.tool_calls.is_empty() {
            message["tool_calls"] = self
                .tool_calls
                .iter()
                .map(TranslatedCall::to_openai)
                .collect();
        }
        message
    }
}

/// The contract's finish reason: a turn that called a tool is `tool_calls`, always.
fn finish_reason(called: bool, reason: Option<FinishReason>) -> FinishReason {
    match reason {
        _ if called => FinishReason::ToolCalls,
        Some(FinishReason::Length) => FinishReason::Length,
        Some(FinishReason::Refusal | FinishReason::ContentFilter) => FinishReason::ContentFilter,
        _ => FinishReason::Stop,
    }
}

#[cfg(test)]
mod tests {
    use super::finish_reason;
    use crate::model::FinishReason;

    #[test]
    fn a_turn_with_calls_is_tool_calls_whatever_the_provider_said() {
        use FinishReason::*;
        assert_eq!(finish_reason(true, Some(Stop)), ToolCalls);
        assert_eq!(finish_reason(true, Some(Length)), ToolCalls);
        assert_eq!(finish_reason(true, None), ToolCalls);
        assert_eq!(finish_reason(false, Some(ToolCalls)), Stop);
        assert_eq!(finish_reason(false, Some(Length)), Length);
        assert_eq!(finish_reason(false, Some(Refusal)), ContentFilter);
        assert_eq!(finish_reason(false, Some(ContentFilter)), ContentFilter);
        assert_eq!(finish_reason(false, Some(Other("pause_turn".into()))), Stop);
        assert_eq!(finish_reason(false, None), Stop);
    }
}
