//! The request side of [`Gemini`](crate::providers::Gemini): the transcript as
//! `contents` (with the thought signatures of the turns that carried them), and the
//! settings as `generationConfig` and `toolConfig`.

use std::borrow::Cow;
use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::model::ModelError;
use crate::model::message::{Message, NativeTurn, ToolCall};
use crate::model::settings::{ModelSettings, ToolChoice};
use crate::providers::common::settings::{SamplingParams, check_common, refuse};
use crate::providers::common::wire::{
    arguments_object, join_system, pending_text, turn_blocks, user_blocks,
};
use crate::tool::content::{ContentPart, PartBody, PartKind};
use crate::tool::kit::Toolkit;

pub(crate) const PROVIDER: &str = "Gemini";
/// The name [`NativeTurn::provider`] has for Gemini's turns.
pub(crate) const NATIVE: &str = "gcp.gemini";
/// Ids toolnexus gives calls that came without one; they are not sent back.
pub(crate) const LOCAL_ID: &str = "gemini_call_";
/// The thinking levels `thinkingConfig.thinkingLevel` takes.
const LEVELS: [&str; 5] = ["minimal", "low", "medium", "high", "xhigh"];

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Body<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) system_instruction: Option<Content<'a>>,
    pub(crate) contents: Vec<Content<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) tools: Option<&'a RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) tool_config: Option<ToolConfig<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) generation_config: Option<GenerationConfig<'a>>,
}

#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GenerationConfig<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    max_output_tokens: Option<u32>,
    #[serde(flatten)]
    sampling: SamplingParams<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    seed: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking_config: Option<ThinkingConfig>,
}

#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
struct ThinkingConfig {
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking_budget: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking_level: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    include_thoughts: Option<bool>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ToolConfig<'a> {
    function_calling_config: FunctionCallingConfig<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FunctionCallingConfig<'a> {
    mode: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    allowed_function_names: Option<[&'a str; 1]>,
}

/// The settings as `generationConfig` and `toolConfig`; a setting Gemini cannot honour
/// is an error naming it.
pub(crate) fn config<'a>(
    settings: &'a ModelSettings,
    toolkit: &Toolkit,
    tools: bool,
) -> Result<(Option<GenerationConfig<'a>>, Option<ToolConfig<'a>>), ModelError> {
    check_common(PROVIDER, settings, toolkit)?;
    if settings.parallel_tool_calls == Some(false) {
        return Err(refuse(
            PROVIDER,
            "parallel_tool_calls",
            "Gemini has no switch to keep a turn to one call",
        ));
    }
    let seed = match settings.seed {
        None => None,
        Some(seed) => Some(i32::try_from(seed).map_err(|_| {
            refuse(
                PROVIDER,
                "seed",
                format!("Gemini's seed is a 32-bit integer ({seed} given)"),
            )
        })?),
    };
    let thinking = match &settings.reasoning {
        None => None,
        Some(reasoning) => {
            let level = match reasoning.effort.as_deref() {
                None => None,
                Some(effort) if LEVELS.contains(&effort) => Some(effort.to_ascii_uppercase()),
                Some(effort) => {
                    return Err(refuse(
                        PROVIDER,
                        "reasoning",
                        format!(
                            "Gemini has no thinking level `{effort}` ({}); to turn thinking \
                             off where a model allows it, use Reasoning::budget(0)",
                            LEVELS.join(", ")
                        ),
                    ));
                }
            };
            let include = match reasoning.summary.as_deref() {
                None => None,
                Some("none") => Some(false),
                Some("auto" | "concise" | "detailed") => Some(true),
                Some(other) => {
                    return Err(refuse(
                        PROVIDER,
                        "reasoning",
                        format!("no summary `{other}` (auto, concise, detailed or none)"),
                    ));
                }
            };
            Some(ThinkingConfig {
                thinking_budget: reasoning.budget_tokens,
                thinking_level: level,
                include_thoughts: include,
            })
        }
    };
    let generation = GenerationConfig {
        max_output_tokens: settings.max_tokens,
        sampling: SamplingParams::of(settings),
        seed,
        thinking_config: thinking,
    };
    let empty = generation.max_output_tokens.is_none()
        && generation.sampling.is_empty()
        && generation.seed.is_none()
        && generation.thinking_config.is_none();
    let tool_config = match (&settings.tool_choice, tools) {
        (Some(choice), true) => {
            let (mode, named) = match choice {
                ToolChoice::Auto => ("AUTO", None),
                ToolChoice::Required => ("ANY", None),
                ToolChoice::None => ("NONE", None),
                ToolChoice::Tool(name) => ("ANY", Some([name.as_str()])),
            };
            Some(ToolConfig {
                function_calling_config: FunctionCallingConfig {
                    mode,
                    allowed_function_names: named,
                },
            })
        }
        _ => None,
    };
    Ok(((!empty).then_some(generation), tool_config))
}

#[derive(Serialize)]
pub(crate) struct Content<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) role: Option<&'static str>,
    pub(crate) parts: Vec<WirePart<'a>>,
}

/// A part built here, or one of a kept turn sent back as it came. Nearly every part is
/// built, so the large variant stays unboxed.
#[allow(clippy::large_enum_variant)]
#[derive(Serialize)]
#[serde(untagged)]
pub(crate) enum WirePart<'a> {
    Built(Part<'a>),
    Native(&'a Value),
}

#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Part<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    function_call: Option<FunctionCall<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    function_response: Option<FunctionResponse<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    inline_data: Option<Blob<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    file_data: Option<FileData<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    thought_signature: Option<&'a str>,
}

impl<'a> Part<'a> {
    pub(crate) fn text(text: impl Into<Cow<'a, str>>) -> WirePart<'a> {
        WirePart::Built(Part {
            text: Some(text.into()),
            ..Part::default()
        })
    }
}

#[derive(Serialize)]
struct FunctionCall<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a str>,
    name: &'a str,
    args: &'a RawValue,
}

#[derive(Serialize)]
struct FunctionResponse<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a str>,
    name: &'a str,
    response: ResponseValue<'a>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    parts: Vec<ResponsePart<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "lowercase")]
enum ResponseValue<'a> {
    Output(Cow<'a, str>),
    Error(Cow<'a, str>),
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResponsePart<'a> {
    inline_data: Blob<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Blob<'a> {
    mime_type: &'a str,
    data: String,
}

/// A part linked by URL (Gemini's `fileData`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FileData<'a> {
    mime_type: &'a str,
    file_uri: &'a str,
}

fn blob(part: &ContentPart) -> Blob<'_> {
    Blob {
        mime_type: part.mime_type(),
        data: part.base64().unwrap_or_default(),
    }
}

/// A part as a content part of its own: text as `text`, bytes as `inlineData`, a URL as
/// `fileData`.
fn own_part(part: &ContentPart) -> WirePart<'_> {
    match part.body() {
        PartBody::Text(text) => Part::text(text),
        PartBody::Url(url) => WirePart::Built(Part {
            file_data: Some(FileData {
                mime_type: part.mime_type(),
                file_uri: url,
            }),
            ..Part::default()
        }),
        _ => WirePart::Built(Part {
            inline_data: Some(blob(part)),
            ..Part::default()
        }),
    }
}

/// Whether a tool result's part rides inside its function response (an image or a file
/// as bytes); the others (audio, text, a URL) follow as parts of their own.
fn inlined(part: &ContentPart) -> bool {
    part.kind() != PartKind::Audio && part.data().is_some()
}

fn wire_id(id: &str) -> Option<&str> {
    (!id.starts_with(LOCAL_ID)).then_some(id)
}

/// The system instruction and the user/model contents.
pub(crate) fn contents(transcript: &[Message]) -> (Option<Cow<'_, str>>, Vec<Content<'_>>) {
    let mut system: Option<Cow<'_, str>> = None;
    let mut out: Vec<Content<'_>> = Vec::with_capacity(transcript.len());
    // Call id -> tool name: a function response names its function.
    let mut names: HashMap<&str, &str> = HashMap::new();
    // Audio from the tool results since the last model turn, sent after all of them.
    let mut audio: Vec<WirePart<'_>> = Vec::new();
    for message in transcript {
        if !matches!(message, Message::Tool { .. })
            && !audio.is_empty()
            && let Some(last) = out.last_mut()
        {
            last.parts.append(&mut audio);
        }
        let (role, parts) = match message {
            Message::System { content } => {
                join_system(&mut system, content);
                continue;
            }
            Message::User { content } => ("user", user_blocks(content, Part::text, own_part)),
            Message::Assistant {
                content,
                tool_calls,
                native,
            } => {
                for call in tool_calls {
                    names.insert(&call.id, &call.name);
                }
                let parts = match native.as_deref().filter(|n| n.provider == NATIVE) {
                    Some(native) => replay(native, tool_calls),
                    None => turn_blocks(content.as_deref(), tool_calls, Part::text, |call| {
                        call_part(call, None)
                    }),
                };
                ("model", parts)
            }
            Message::Tool { .. } => {
                let Some(tool) = message.as_tool() else {
                    continue;
                };
                let name = names.get(tool.tool_call_id).copied().unwrap_or("");
                let response = match tool.pending {
                    Some(request) => ResponseValue::Output(Cow::Owned(pending_text(request))),
                    None if tool.is_error => ResponseValue::Error(Cow::Borrowed(tool.content)),
                    None => ResponseValue::Output(Cow::Borrowed(tool.content)),
                };
                let inline = tool
                    .parts
                    .iter()
                    .filter(|p| inlined(p))
                    .map(|p| ResponsePart {
                        inline_data: blob(p),
                    })
                    .collect();
                audio.extend(tool.parts.iter().filter(|p| !inlined(p)).map(own_part));
                let part = Part {
                    function_response: Some(FunctionResponse {
                        id: wire_id(tool.tool_call_id),
                        name,
                        response,
                        parts: inline,
                    }),
                    ..Part::default()
                };
                ("user", vec![WirePart::Built(part)])
            }
        };
        if parts.is_empty() {
            continue;
        }
        match out.last_mut() {
            Some(last) if last.role == Some(role) => last.parts.extend(parts),
            _ => out.push(Content {
                role: Some(role),
                parts,
            }),
        }
    }
    if let Some(last) = out.last_mut() {
        last.parts.append(&mut audio);
    }
    (system, out)
}

/// A kept model turn's parts as they came (text, thoughts, their signatures), but its
/// `functionCall` parts, which are the turn's calls (in order, with the ids the loop gave
/// them) carrying the signature that came on them.
fn replay<'a>(native: &'a NativeTurn, calls: &'a [ToolCall]) -> Vec<WirePart<'a>> {
    let stored = native
        .content
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut calls = calls.iter();
    let mut out = Vec::with_capacity(stored.len());
    for part in stored {
        if part.get("functionCall").is_some() {
            let signature = part.get("thoughtSignature").and_then(Value::as_str);
            out.extend(calls.next().map(|call| call_part(call, signature)));
        } else {
            out.push(WirePart::Native(part));
        }
    }
    out.extend(calls.map(|call| call_part(call, None)));
    out
}

fn call_part<'a>(call: &'a ToolCall, signature: Option<&'a str>) -> WirePart<'a> {
    WirePart::Built(Part {
        function_call: Some(FunctionCall {
            id: wire_id(&call.id),
            name: &call.name,
            args: arguments_object(&call.arguments),
        }),
        thought_signature: signature,
        ..Part::default()
    })
}
