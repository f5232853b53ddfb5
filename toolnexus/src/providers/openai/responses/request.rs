//! The request side of [`OpenAiResponses`](crate::providers::OpenAiResponses): the
//! transcript as `input` items (a kept turn's reasoning items sent back before its calls).

use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;

use crate::model::message::{Message, NativeTurn, ToolCall};
use crate::providers::common::wire::{data_url, join_system, omitted, tool_text};
use crate::tool::content::{ContentPart, PartBody, PartKind};

pub(crate) const PROVIDER: &str = "OpenAI Responses";
/// The name [`NativeTurn::provider`] has for the turns of the Responses API.
pub(crate) const NATIVE: &str = "openai.responses";

/// One `input` item.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum Item<'a> {
    Message {
        role: &'static str,
        content: Output<'a>,
    },
    FunctionCall {
        #[serde(skip_serializing_if = "Option::is_none")]
        id: Option<&'a str>,
        call_id: &'a str,
        name: &'a str,
        arguments: &'a str,
    },
    FunctionCallOutput {
        call_id: &'a str,
        output: Output<'a>,
    },
    /// An item of a kept turn, as it came (a reasoning item with its encrypted content,
    /// an output message).
    #[serde(untagged)]
    Native(&'a Value),
}

/// A message's content or a function call's output: text, or text with images and
/// files.
#[derive(Serialize)]
#[serde(untagged)]
pub(crate) enum Output<'a> {
    Text(Cow<'a, str>),
    Parts(Vec<OutputPart<'a>>),
}

/// A part of a function call's output: `input_text`, `input_image`, `input_file`.
#[derive(Serialize)]
#[serde(tag = "type")]
pub(crate) enum OutputPart<'a> {
    #[serde(rename = "input_text")]
    Text { text: Cow<'a, str> },
    #[serde(rename = "input_image")]
    Image {
        image_url: String,
        detail: &'static str,
    },
    #[serde(rename = "input_file")]
    File {
        #[serde(skip_serializing_if = "Option::is_none")]
        file_data: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        file_url: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        filename: Option<&'a str>,
    },
}

/// The `instructions` (the system messages) and the `input` items.
pub(crate) fn input(transcript: &[Message]) -> (Option<Cow<'_, str>>, Vec<Item<'_>>) {
    let mut instructions: Option<Cow<'_, str>> = None;
    let mut out = Vec::with_capacity(transcript.len() + 1);
    for message in transcript {
        match message {
            Message::System { content } => {
                join_system(&mut instructions, content);
            }
            Message::User { content } => out.push(Item::Message {
                role: "user",
                content: match content.as_text() {
                    Some(text) => Output::Text(Cow::Borrowed(text)),
                    None => Output::Parts(content.parts().iter().map(output_part).collect()),
                },
            }),
            Message::Assistant {
                content,
                tool_calls,
                native,
            } => match native.as_deref().filter(|n| n.provider == NATIVE) {
                Some(native) => replay(native, tool_calls, &mut out),
                None => {
                    if let Some(content) = content.as_deref().filter(|c| !c.is_empty()) {
                        out.push(Item::Message {
                            role: "assistant",
                            content: Output::Text(Cow::Borrowed(content)),
                        });
                    }
                    out.extend(tool_calls.iter().map(|call| function_call(call, None)));
                }
            },
            Message::Tool { .. } => {
                let Some(tool) = message.as_tool() else {
                    continue;
                };
                let text = tool_text(&tool);
                let output = match tool.parts.is_empty() || tool.pending.is_some() {
                    true => Output::Text(text),
                    false => {
                        let mut all = Vec::with_capacity(tool.parts.len() + 1);
                        if !text.is_empty() {
                            all.push(OutputPart::Text { text });
                        }
                        all.extend(tool.parts.iter().map(output_part));
                        Output::Parts(all)
                    }
                };
                out.push(Item::FunctionCallOutput {
                    call_id: tool.tool_call_id,
                    output,
                });
            }
        }
    }
    (instructions, out)
}

/// A kept turn's items as they came (its reasoning items first, as the API wants them
/// before the calls they led to), but its `function_call` items, which are the turn's
/// calls (in order, with the ids the loop gave them) keeping the item id that ties each
/// to its reasoning.
fn replay<'a>(native: &'a NativeTurn, calls: &'a [ToolCall], out: &mut Vec<Item<'a>>) {
    let items = native
        .content
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut calls = calls.iter();
    for item in items {
        if item.get("type").and_then(Value::as_str) == Some("function_call") {
            let id = item.get("id").and_then(Value::as_str);
            out.extend(calls.next().map(|call| function_call(call, id)));
        } else {
            out.push(Item::Native(item));
        }
    }
    out.extend(calls.map(|call| function_call(call, None)));
}

fn function_call<'a>(call: &'a ToolCall, id: Option<&'a str>) -> Item<'a> {
    Item::FunctionCall {
        id,
        call_id: &call.id,
        name: &call.name,
        arguments: if call.arguments.trim().is_empty() {
            "{}"
        } else {
            &call.arguments
        },
    }
}

/// A part as a Responses input part: text, an image (by bytes or URL), a file (by bytes,
/// named, or by `file_url`). The Responses API takes no audio part: an audio part is sent
/// as a text line saying it was left out.
fn output_part(part: &ContentPart) -> OutputPart<'_> {
    match (part.kind(), part.body()) {
        (_, PartBody::Text(text)) => OutputPart::Text {
            text: Cow::Borrowed(text),
        },
        (PartKind::Image, _) => OutputPart::Image {
            image_url: data_url(part),
            detail: "auto",
        },
        (PartKind::File, PartBody::Url(url)) => OutputPart::File {
            file_data: None,
            file_url: Some(url),
            filename: None,
        },
        (PartKind::File, _) => OutputPart::File {
            file_data: Some(data_url(part)),
            file_url: None,
            filename: Some(part.name().unwrap_or("file")),
        },
        _ => OutputPart::Text {
            text: Cow::Owned(omitted(part, PROVIDER)),
        },
    }
}
