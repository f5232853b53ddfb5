//! The request side of [`Anthropic`](crate::providers::Anthropic): the transcript as
//! Messages API blocks, the settings as its fields (thinking, tool choice, effort), and
//! the prompt cache's breakpoints.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::model::ModelError;
use crate::model::message::{Message, ToolCall};
use crate::model::settings::{ModelSettings, ToolChoice};
use crate::providers::anthropic::search::{Replayed, replay};
use crate::providers::common::settings::{
    MIN_THINKING_BUDGET, budget_too_small, cap_above_budget, check_common, refuse, refuse_set,
    unforced_while_thinking,
};
use crate::providers::common::wire::{
    RoleMessage, arguments_object, join_system, omitted, push, result_text, turn_blocks,
    user_blocks,
};
use crate::tool::content::{ContentPart, PartKind};

pub(crate) const PROVIDER: &str = "Anthropic";

/// The default `max_tokens`: the Messages API requires a cap.
pub(crate) const DEFAULT_MAX_TOKENS: u32 = 4096;
/// The efforts `output_config.effort` takes.
const EFFORTS: [&str; 5] = ["low", "medium", "high", "xhigh", "max"];

#[derive(Serialize)]
pub(crate) struct Body<'a> {
    pub(crate) model: &'a str,
    pub(crate) max_tokens: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) system: Option<System<'a>>,
    pub(crate) messages: Vec<Wire<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) tools: Option<&'a RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) tool_choice: Option<AnthropicToolChoice<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) thinking: Option<Thinking>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) output_config: Option<OutputConfig<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) stop_sequences: Option<&'a [String]>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) stream: bool,
}

/// `system`: plain text, or one text block carrying the cache breakpoint.
#[derive(Serialize)]
#[serde(untagged)]
pub(crate) enum System<'a> {
    Text(Cow<'a, str>),
    Blocks([SystemBlock<'a>; 1]),
}

#[derive(Serialize)]
pub(crate) struct SystemBlock<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: Cow<'a, str>,
    cache_control: CacheControl,
}

/// `{"type": "ephemeral"}`: a prompt-cache breakpoint (five minutes, refreshed on use).
#[derive(Serialize, Clone, Copy)]
pub(crate) struct CacheControl {
    #[serde(rename = "type")]
    kind: &'static str,
}

const EPHEMERAL: CacheControl = CacheControl { kind: "ephemeral" };

/// The `cache_control` member added to the last tool entry of a listing's JSON text.
const TOOL_BREAKPOINT: &str = r#","cache_control":{"type":"ephemeral"}"#;

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum AnthropicToolChoice<'a> {
    Auto {
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        disable_parallel_tool_use: bool,
    },
    Any {
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        disable_parallel_tool_use: bool,
    },
    Tool {
        name: &'a str,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        disable_parallel_tool_use: bool,
    },
    None,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum Thinking {
    Enabled {
        budget_tokens: u32,
        #[serde(skip_serializing_if = "Option::is_none")]
        display: Option<&'static str>,
    },
    Adaptive {
        #[serde(skip_serializing_if = "Option::is_none")]
        display: Option<&'static str>,
    },
    Disabled,
}

#[derive(Serialize)]
pub(crate) struct OutputConfig<'a> {
    effort: &'a str,
}

/// One message: a role and its blocks.
pub(crate) type Wire<'a> = RoleMessage<WireBlock<'a>>;

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum WireBlock<'a> {
    Text {
        text: Cow<'a, str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
    ToolUse {
        id: &'a str,
        name: &'a str,
        input: &'a RawValue,
        #[serde(skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
    ToolResult {
        tool_use_id: &'a str,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        content: Vec<WireBlock<'a>>,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        is_error: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
    Image {
        source: Source<'a>,
        #[serde(skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
    Document {
        source: Source<'a>,
        #[serde(skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
    /// A block of a kept [`NativeTurn`](crate::model::NativeTurn), as it came (thinking blocks
    /// with their signatures, tool search's blocks).
    #[serde(untagged)]
    Native(&'a Value),
}

impl WireBlock<'_> {
    /// The block's breakpoint slot; `None` for a kept block, which is sent as it came.
    fn cache_control(&mut self) -> Option<&mut Option<CacheControl>> {
        match self {
            WireBlock::Text { cache_control, .. }
            | WireBlock::ToolUse { cache_control, .. }
            | WireBlock::ToolResult { cache_control, .. }
            | WireBlock::Image { cache_control, .. }
            | WireBlock::Document { cache_control, .. } => Some(cache_control),
            WireBlock::Native(_) => None,
        }
    }
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub(crate) enum Source<'a> {
    Base64 { media_type: &'a str, data: String },
    Url { url: &'a str },
}

/// The fields a turn's settings give the body.
pub(crate) struct Asked<'a> {
    pub(crate) max_tokens: u32,
    pub(crate) tool_choice: Option<AnthropicToolChoice<'a>>,
    pub(crate) thinking: Option<Thinking>,
    pub(crate) output_config: Option<OutputConfig<'a>>,
    pub(crate) stop_sequences: Option<&'a [String]>,
}

/// The settings as Messages API fields; a setting the API cannot honour is an error
/// naming it.
pub(crate) fn asked<'a>(
    settings: &'a ModelSettings,
    toolkit: &crate::tool::kit::Toolkit,
    tools: bool,
) -> Result<Asked<'a>, ModelError> {
    check_common(PROVIDER, settings, toolkit)?;
    refuse_set(
        PROVIDER,
        &[
            ("temperature", settings.temperature.is_some()),
            ("top_p", settings.top_p.is_some()),
            ("seed", settings.seed.is_some()),
        ],
        "the Messages API has no such field (Claude's sampling is not adjustable)",
    )?;
    let reasoning = settings.reasoning.as_ref();
    let display = match reasoning.and_then(|r| r.summary.as_deref()) {
        None => None,
        Some("none") => Some("omitted"),
        Some("auto" | "concise" | "detailed") => Some("summarized"),
        Some(other) => {
            return Err(refuse(
                PROVIDER,
                "reasoning",
                format!("no summary `{other}` (auto, concise, detailed or none)"),
            ));
        }
    };
    let mut output_config = None;
    let thinking = match reasoning {
        None => None,
        Some(r) => match (r.budget_tokens, r.effort.as_deref()) {
            (Some(budget), _) if budget < MIN_THINKING_BUDGET => {
                return Err(budget_too_small(PROVIDER, budget));
            }
            (Some(budget), _) => Some(Thinking::Enabled {
                budget_tokens: budget,
                display,
            }),
            (None, Some("none")) => Some(Thinking::Disabled),
            (None, Some(effort)) if EFFORTS.contains(&effort) => {
                output_config = Some(OutputConfig { effort });
                Some(Thinking::Adaptive { display })
            }
            (None, Some(effort)) => {
                return Err(refuse(
                    PROVIDER,
                    "reasoning",
                    format!("no effort `{effort}` ({})", EFFORTS.join(", ")),
                ));
            }
            (None, None) if display.is_some() => Some(Thinking::Adaptive { display }),
            (None, None) => None,
        },
    };
    let budget = match &thinking {
        Some(Thinking::Enabled { budget_tokens, .. }) => Some(*budget_tokens),
        _ => None,
    };
    let max_tokens = cap_above_budget(PROVIDER, settings.max_tokens, budget, DEFAULT_MAX_TOKENS)?
        .unwrap_or(DEFAULT_MAX_TOKENS);
    let thinks = matches!(
        thinking,
        Some(Thinking::Enabled { .. } | Thinking::Adaptive { .. })
    );
    unforced_while_thinking(
        PROVIDER,
        thinks,
        settings,
        "with thinking on, Claude takes only `Auto` or `None` (forcing a tool call is \
         refused by the API)",
    )?;
    let serial = settings.parallel_tool_calls == Some(false);
    let tool_choice = match (&settings.tool_choice, tools) {
        (_, false) => None,
        (Some(ToolChoice::None), _) => Some(AnthropicToolChoice::None),
        (Some(ToolChoice::Required), _) => Some(AnthropicToolChoice::Any {
            disable_parallel_tool_use: serial,
        }),
        (Some(ToolChoice::Tool(name)), _) => Some(AnthropicToolChoice::Tool {
            name,
            disable_parallel_tool_use: serial,
        }),
        (Some(ToolChoice::Auto), _) | (None, _) if serial => Some(AnthropicToolChoice::Auto {
            disable_parallel_tool_use: true,
        }),
        (Some(ToolChoice::Auto), _) => Some(AnthropicToolChoice::Auto {
            disable_parallel_tool_use: false,
        }),
        (None, _) => None,
    };
    Ok(Asked {
        max_tokens,
        tool_choice,
        thinking,
        output_config,
        stop_sequences: settings.stop.as_deref(),
    })
}

/// The `system` text and the alternating user/assistant messages.
pub(crate) fn messages(transcript: &[Message]) -> (Option<Cow<'_, str>>, Vec<Wire<'_>>) {
    let mut system: Option<Cow<'_, str>> = None;
    let mut out: Vec<Wire<'_>> = Vec::with_capacity(transcript.len());
    for message in transcript {
        let (role, blocks) = match message {
            Message::System { content } => {
                join_system(&mut system, content);
                continue;
            }
            Message::User { content } => ("user", user_blocks(content, text, block)),
            Message::Assistant {
                content,
                tool_calls,
                native,
            } => {
                if let Some(blocks) = replay(native.as_deref(), tool_calls) {
                    let blocks = blocks.into_iter().map(|block| match block {
                        Replayed::Block(block) => WireBlock::Native(block),
                        Replayed::Call(call) => tool_use(call),
                    });
                    push(&mut out, "assistant", blocks.collect());
                    continue;
                }
                let blocks = turn_blocks(content.as_deref(), tool_calls, text, tool_use);
                ("assistant", blocks)
            }
            Message::Tool { .. } => {
                let Some(tool) = message.as_tool() else {
                    continue;
                };
                let mut inner: Vec<WireBlock<'_>> = result_text(&tool)
                    .map(|text| WireBlock::Text {
                        text,
                        cache_control: None,
                    })
                    .into_iter()
                    .collect();
                inner.extend(tool.parts.iter().map(block));
                let block = WireBlock::ToolResult {
                    tool_use_id: tool.tool_call_id,
                    content: inner,
                    is_error: tool.is_error && tool.pending.is_none(),
                    cache_control: None,
                };
                ("user", vec![block])
            }
        };
        push(&mut out, role, blocks);
    }
    (system, out)
}

/// The system prompt, with the breakpoint that caches the tools and itself when
/// `cached`.
pub(crate) fn system(text: Cow<'_, str>, cached: bool) -> System<'_> {
    match cached {
        false => System::Text(text),
        true => System::Blocks([SystemBlock {
            kind: "text",
            text,
            cache_control: EPHEMERAL,
        }]),
    }
}

/// A listing's JSON text with a breakpoint on its last entry (the tools are the start of
/// the prompt, so it caches them all), or `None` when the text is not a list of objects.
pub(crate) fn cached_tools(tools: &RawValue) -> Option<Box<RawValue>> {
    let text = tools.get();
    let head = text.strip_suffix("}]")?;
    RawValue::from_string(format!("{head}{TOOL_BREAKPOINT}}}]")).ok()
}

/// A deferred listing with a breakpoint on its last entry that is not deferred (deferred
/// tools stay out of the cached prefix).
pub(crate) fn cache_deferred(tools: &mut Value) {
    let Some(entries) = tools.as_array_mut() else {
        return;
    };
    if let Some(object) = entries
        .iter_mut()
        .rev()
        .filter(|entry| entry.get("defer_loading") != Some(&Value::Bool(true)))
        .find_map(Value::as_object_mut)
    {
        object.insert(
            "cache_control".to_owned(),
            serde_json::json!({"type": "ephemeral"}),
        );
    }
}

/// Puts a breakpoint on the last block of a message that can carry one (see
/// [`mark_tail`](crate::providers::common::wire::mark_tail): the end of the last message
/// and of the user message before the last assistant turn; with the system or tools
/// breakpoint, three of the API's four).
pub(crate) fn mark(content: &mut Vec<WireBlock<'_>>) {
    if let Some(slot) = content.iter_mut().rev().find_map(WireBlock::cache_control) {
        *slot = Some(EPHEMERAL);
    }
}

fn tool_use(call: &ToolCall) -> WireBlock<'_> {
    WireBlock::ToolUse {
        id: &call.id,
        name: &call.name,
        input: arguments_object(&call.arguments),
        cache_control: None,
    }
}

fn text(content: &str) -> WireBlock<'_> {
    WireBlock::Text {
        text: Cow::Borrowed(content),
        cache_control: None,
    }
}

/// A part as a Messages API block: an image or a file (a `document`) by its bytes or by
/// URL; text as text. The API has no audio block: an audio part is sent as a text line
/// saying it was left out.
fn block(part: &ContentPart) -> WireBlock<'_> {
    let source = || match (part.url(), part.base64()) {
        (Some(url), _) => Source::Url { url },
        (None, data) => Source::Base64 {
            media_type: part.mime_type(),
            data: data.unwrap_or_default(),
        },
    };
    match (part.kind(), part.as_text()) {
        (_, Some(content)) => text(content),
        (PartKind::Image, _) => WireBlock::Image {
            source: source(),
            cache_control: None,
        },
        (PartKind::File, _) => WireBlock::Document {
            source: source(),
            cache_control: None,
        },
        _ => WireBlock::Text {
            text: Cow::Owned(omitted(part, PROVIDER)),
            cache_control: None,
        },
    }
}
