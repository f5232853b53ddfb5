//! The wire shapes of OpenAI Chat Completions' usage and streamed chunks, as the
//! provider reads them.

use serde::Deserialize;

use crate::model::Usage;

#[derive(Deserialize, Default)]
#[serde(default)]
pub(crate) struct WireUsage {
    pub(crate) prompt_tokens: u64,
    pub(crate) completion_tokens: u64,
    pub(crate) prompt_tokens_details: Option<PromptDetails>,
    pub(crate) completion_tokens_details: Option<CompletionDetails>,
}

#[derive(Deserialize)]
pub(crate) struct PromptDetails {
    pub(crate) cached_tokens: Option<u64>,
}

#[derive(Deserialize)]
pub(crate) struct CompletionDetails {
    pub(crate) reasoning_tokens: Option<u64>,
}

impl From<WireUsage> for Usage {
    fn from(usage: WireUsage) -> Usage {
        let cached = usage.prompt_tokens_details.and_then(|d| d.cached_tokens);
        let reasoning = usage
            .completion_tokens_details
            .and_then(|d| d.reasoning_tokens);
        Usage::new(usage.prompt_tokens, usage.completion_tokens)
            .with_cache(cached.unwrap_or(0), 0)
            .with_reasoning(reasoning.unwrap_or(0))
    }
}

#[derive(Deserialize)]
pub(crate) struct Chunk {
    #[serde(default)]
    pub(crate) choices: Vec<ChunkChoice>,
    pub(crate) usage: Option<WireUsage>,
    pub(crate) error: Option<serde_json::Value>,
}

#[derive(Deserialize)]
pub(crate) struct ChunkChoice {
    #[serde(default)]
    pub(crate) index: usize,
    #[serde(default)]
    pub(crate) delta: ChunkDelta,
    pub(crate) finish_reason: Option<String>,
}

#[derive(Deserialize, Default)]
pub(crate) struct ChunkDelta {
    pub(crate) content: Option<String>,
    pub(crate) refusal: Option<String>,
    pub(crate) tool_calls: Option<Vec<CallDelta>>,
}

#[derive(Deserialize)]
pub(crate) struct CallDelta {
    #[serde(default)]
    pub(crate) index: usize,
    pub(crate) id: Option<String>,
    pub(crate) function: Option<FunctionDelta>,
}

#[derive(Deserialize, Default)]
pub(crate) struct FunctionDelta {
    pub(crate) name: Option<String>,
    pub(crate) arguments: Option<String>,
}
