//! The request side of [`Bedrock`](crate::providers::Bedrock): the transcript as
//! Converse messages, the settings as `inferenceConfig`, `toolConfig.toolChoice` and
//! `additionalModelRequestFields`, the tools as `toolSpec`s, and the cache points.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};

use crate::model::ModelError;
use crate::model::message::{Message, NativeTurn, ToolCall};
use crate::model::settings::{ModelSettings, ToolChoice};
use crate::providers::bedrock::auth::PROVIDER;
use crate::providers::common::settings::{
    MIN_THINKING_BUDGET, SamplingParams, budget_too_small, cap_above_budget, check_common, refuse,
    unforced_while_thinking,
};
use crate::providers::common::wire::{
    RoleMessage, arguments_object, omitted, push, result_text, turn_blocks, user_blocks,
};
use crate::schema::listing::Listing;
use crate::schema::profile::Profile;
use crate::tool::content::{ContentPart, PartKind};
use crate::tool::kit::Toolkit;

/// The wire format a kept turn is in ([`NativeTurn::provider`]).
pub(crate) const NATIVE: &str = "aws.bedrock";
/// `maxTokens` above a thinking budget when none is set.
const ABOVE_BUDGET: u32 = 4096;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Body<'a> {
    pub(crate) messages: Vec<Wire<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) system: Vec<Block<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) inference_config: Option<InferenceConfig<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) tool_config: Option<ToolConfig<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) additional_model_request_fields: Option<Value>,
}

#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub(crate) struct InferenceConfig<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
    #[serde(flatten)]
    sampling: SamplingParams<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ToolConfig<'a> {
    pub(crate) tools: Cow<'a, RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) tool_choice: Option<Value>,
}

/// One message: a role and its blocks.
pub(crate) type Wire<'a> = RoleMessage<Block<'a>>;

/// A content block (and a system block): the Converse API's tagged unions are objects
/// with one key, the variant's name.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) enum Block<'a> {
    Text(Cow<'a, str>),
    Image(Media),
    Document(Document),
    ToolUse(ToolUse<'a>),
    ToolResult(ToolResultBlock<'a>),
    CachePoint(CachePoint),
    /// A block of a kept turn (reasoning with its signature), sent back as it came.
    #[serde(untagged)]
    Native(&'a Value),
}

#[derive(Serialize)]
pub(crate) struct CachePoint {
    #[serde(rename = "type")]
    kind: &'static str,
}

const CACHE_POINT: CachePoint = CachePoint { kind: "default" };

#[derive(Serialize)]
pub(crate) struct Media {
    format: &'static str,
    source: Source,
}

#[derive(Serialize)]
pub(crate) struct Document {
    format: &'static str,
    name: String,
    source: Source,
}

/// A blob travels base64-encoded in the REST-JSON protocol.
#[derive(Serialize)]
pub(crate) struct Source {
    bytes: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ToolUse<'a> {
    tool_use_id: &'a str,
    name: &'a str,
    input: &'a RawValue,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ToolResultBlock<'a> {
    tool_use_id: &'a str,
    content: Vec<Block<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<&'static str>,
}

/// The model families whose own fields (reasoning, cache points) differ.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Family {
    /// Anthropic's Claude (`anthropic.claude-…`).
    Claude,
    /// Amazon Nova (`amazon.nova-…`).
    Nova,
    /// OpenAI's open-weight models (`openai.gpt-oss-…`).
    GptOss,
    Other,
}

/// The model's family and name without a cross-region prefix or ARN: the name of
/// `us.anthropic.claude-sonnet-4-5-20250929-v1:0` is `anthropic.claude-sonnet-4-5-…`.
pub(crate) fn family(model: &str) -> (Family, &str) {
    let name = model.rsplit('/').next().unwrap_or(model);
    let name = match name.split_once('.') {
        Some((prefix, rest))
            if ["us", "eu", "apac", "us-gov", "global", "jp", "au", "ca"].contains(&prefix) =>
        {
            rest
        }
        _ => name,
    };
    let family = if name.starts_with("anthropic.claude") {
        Family::Claude
    } else if name.starts_with("amazon.nova") {
        Family::Nova
    } else if name.starts_with("openai.gpt-oss") {
        Family::GptOss
    } else {
        Family::Other
    };
    (family, name)
}

/// Whether the model takes cache points (Bedrock's prompt caching): Claude 3.5 Haiku,
/// 3.7 Sonnet and every Claude from 4 on, and Amazon Nova.
pub(crate) fn caches(model: &str) -> bool {
    let (family, name) = family(model);
    match family {
        Family::Nova => true,
        Family::Claude => {
            let rest = name.trim_start_matches("anthropic.claude-");
            rest.starts_with("3-7")
                || rest.starts_with("3-5-haiku")
                || ["sonnet-", "opus-", "haiku-"].iter().any(|kind| {
                    rest.strip_prefix(kind)
                        .and_then(|v| v.chars().next())
                        .is_some_and(|c| c.is_ascii_digit() && c >= '4')
                })
        }
        _ => false,
    }
}

/// The toolkit's tools as `toolSpec`s (from the Anthropic profile's schemas, a root that
/// is always one object), shared and built once per toolkit.
pub(crate) fn tools(toolkit: &Toolkit) -> Option<Listing> {
    if toolkit.is_empty() {
        return None;
    }
    Some(toolkit.derived_listing(|toolkit| {
        let anthropic = toolkit.listing(Profile::Anthropic);
        let entries = anthropic.as_array().map(Vec::as_slice).unwrap_or_default();
        let specs = entries
            .iter()
            .map(|entry| {
                let mut spec = serde_json::Map::new();
                spec.insert("name".into(), entry["name"].clone());
                if entry["description"].as_str().is_some_and(|d| !d.is_empty()) {
                    spec.insert("description".into(), entry["description"].clone());
                }
                spec.insert(
                    "inputSchema".into(),
                    json!({"json": entry["input_schema"].clone()}),
                );
                json!({"toolSpec": spec})
            })
            .collect();
        Value::Array(specs)
    }))
}

/// The tool list with a cache point after it, or `None` when the text is not a list.
pub(crate) fn cached_tools(tools: &RawValue) -> Option<Box<RawValue>> {
    let head = tools.get().strip_suffix(']')?;
    RawValue::from_string(format!(r#"{head},{{"cachePoint":{{"type":"default"}}}}]"#)).ok()
}

/// The fields a turn's settings give the body.
pub(crate) struct Asked<'a> {
    pub(crate) inference: Option<InferenceConfig<'a>>,
    pub(crate) tool_choice: Option<Value>,
    pub(crate) additional: Option<Value>,
}

/// The settings as Converse fields; a setting the model cannot honour is an error naming
/// it.
pub(crate) fn asked<'a>(
    model: &str,
    settings: &'a ModelSettings,
    toolkit: &Toolkit,
) -> Result<Asked<'a>, ModelError> {
    check_common(PROVIDER, settings, toolkit)?;
    if settings.seed.is_some() {
        return Err(refuse(
            PROVIDER,
            "seed",
            "the Converse API has no such field",
        ));
    }
    if settings.parallel_tool_calls == Some(false) {
        return Err(refuse(
            PROVIDER,
            "parallel_tool_calls",
            "the Converse API has no switch to keep a turn to one call",
        ));
    }
    let tools = !toolkit.is_empty();
    let tool_choice = match (&settings.tool_choice, tools) {
        (Some(ToolChoice::None), true) => {
            return Err(refuse(
                PROVIDER,
                "tool_choice",
                "the Converse API's toolChoice has no `none` (auto, any, or one tool); leave \
                 the tools out of the toolkit instead",
            ));
        }
        (_, false) | (None, _) => None,
        (Some(ToolChoice::Auto), _) => Some(json!({"auto": {}})),
        (Some(ToolChoice::Required), _) => Some(json!({"any": {}})),
        (Some(ToolChoice::Tool(name)), _) => Some(json!({"tool": {"name": name}})),
    };
    let (fields, budget) = reasoning(model, settings)?;
    let max_tokens = cap_above_budget(PROVIDER, settings.max_tokens, budget, ABOVE_BUDGET)?;
    unforced_while_thinking(
        PROVIDER,
        budget.is_some(),
        settings,
        "with thinking on, Claude takes only `Auto` (forcing a tool call is refused)",
    )?;
    let inference = InferenceConfig {
        max_tokens,
        sampling: SamplingParams::of(settings),
    };
    let empty = inference.max_tokens.is_none() && inference.sampling.is_empty();
    Ok(Asked {
        inference: (!empty).then_some(inference),
        tool_choice,
        additional: fields,
    })
}

/// The reasoning as the model family's own `additionalModelRequestFields`, and the
/// thinking budget when there is one.
fn reasoning(
    model: &str,
    settings: &ModelSettings,
) -> Result<(Option<Value>, Option<u32>), ModelError> {
    let Some(reasoning) = &settings.reasoning else {
        return Ok((None, None));
    };
    if reasoning.summary.is_some() {
        return Err(refuse(
            PROVIDER,
            "reasoning",
            "the Converse API has no switch for reasoning summaries",
        ));
    }
    let effort = reasoning.effort.as_deref();
    match (family(model).0, reasoning.budget_tokens, effort) {
        (Family::Claude, Some(budget), _) if budget < MIN_THINKING_BUDGET => {
            Err(budget_too_small(PROVIDER, budget))
        }
        (Family::Claude, Some(budget), _) => Ok((
            Some(json!({"thinking": {"type": "enabled", "budget_tokens": budget}})),
            Some(budget),
        )),
        (Family::Claude, None, Some("none")) => {
            Ok((Some(json!({"thinking": {"type": "disabled"}})), None))
        }
        (Family::Claude, None, Some(effort)) => Err(refuse(
            PROVIDER,
            "reasoning",
            format!(
                "Claude on Bedrock thinks within a token budget, not at an effort \
                 (`{effort}`): use Reasoning::budget(n), n ≥ {MIN_THINKING_BUDGET}"
            ),
        )),
        (Family::Nova, None, Some("none")) => {
            Ok((Some(json!({"reasoningConfig": {"type": "disabled"}})), None))
        }
        (Family::Nova, None, Some(effort @ ("low" | "medium" | "high"))) => Ok((
            Some(json!({"reasoningConfig": {"type": "enabled", "maxReasoningEffort": effort}})),
            None,
        )),
        (Family::GptOss, None, Some(effort @ ("low" | "medium" | "high"))) => {
            Ok((Some(json!({"reasoning_effort": effort})), None))
        }
        (Family::Nova | Family::GptOss, None, Some(effort)) => Err(refuse(
            PROVIDER,
            "reasoning",
            format!("`{model}` takes the efforts low, medium and high (`{effort}` given)"),
        )),
        (Family::Nova | Family::GptOss, Some(budget), _) => Err(refuse(
            PROVIDER,
            "reasoning",
            format!(
                "`{model}` takes a reasoning effort, not a token budget ({budget}); use \
                 Reasoning::effort(\"low\" | \"medium\" | \"high\")"
            ),
        )),
        (_, None, None) => Ok((None, None)),
        (Family::Other, _, _) => Err(refuse(
            PROVIDER,
            "reasoning",
            format!(
                "toolnexus does not know how `{model}` is asked to reason; pass the model's \
                 own fields with ModelSettings::extra(json!({{\"additionalModelRequestFields\": \
                 {{…}}}}))"
            ),
        )),
    }
}

/// The `system` blocks and the alternating user/assistant messages.
pub(crate) fn messages(transcript: &[Message]) -> (Vec<Block<'_>>, Vec<Wire<'_>>) {
    let mut system = Vec::new();
    let mut out: Vec<Wire<'_>> = Vec::with_capacity(transcript.len());
    let mut documents = 0usize;
    for message in transcript {
        let (role, blocks) = match message {
            Message::System { content } => {
                if !content.is_empty() {
                    system.push(Block::Text(Cow::Borrowed(content)));
                }
                continue;
            }
            Message::User { content } => (
                "user",
                user_blocks(
                    content,
                    |text| Block::Text(Cow::Borrowed(text)),
                    |part| part_block(part, &mut documents),
                ),
            ),
            Message::Assistant {
                content,
                tool_calls,
                native,
            } => {
                let blocks = match replay(native.as_deref(), tool_calls) {
                    Some(blocks) => blocks,
                    None => turn_blocks(
                        content.as_deref(),
                        tool_calls,
                        |text| Block::Text(Cow::Borrowed(text)),
                        tool_use,
                    ),
                };
                ("assistant", blocks)
            }
            Message::Tool { .. } => {
                let Some(tool) = message.as_tool() else {
                    continue;
                };
                let mut inner: Vec<Block<'_>> =
                    result_text(&tool).map(Block::Text).into_iter().collect();
                for part in tool.parts {
                    inner.push(part_block(part, &mut documents));
                }
                let failed = tool.is_error && tool.pending.is_none();
                let block = Block::ToolResult(ToolResultBlock {
                    tool_use_id: tool.tool_call_id,
                    content: inner,
                    status: failed.then_some("error"),
                });
                ("user", vec![block])
            }
        };
        push(&mut out, role, blocks);
    }
    (system, out)
}

/// A kept turn's blocks, its `toolUse` blocks replaced by the transcript's calls (their
/// ids kept in step); `None` for a turn not kept in Bedrock's form.
fn replay<'a>(native: Option<&'a NativeTurn>, calls: &'a [ToolCall]) -> Option<Vec<Block<'a>>> {
    let blocks = native
        .filter(|n| n.provider == NATIVE)?
        .content
        .as_array()?;
    let mut calls = calls.iter();
    let mut out = Vec::with_capacity(blocks.len());
    for block in blocks {
        if block.get("toolUse").is_some() {
            out.extend(calls.next().map(tool_use));
        } else {
            out.push(Block::Native(block));
        }
    }
    out.extend(calls.map(tool_use));
    Some(out)
}

/// Adds a cache point after a message's blocks (see
/// [`mark_tail`](crate::providers::common::wire::mark_tail) for which messages get one).
pub(crate) fn cache_point(content: &mut Vec<Block<'_>>) {
    content.push(Block::CachePoint(CACHE_POINT));
}

/// The system blocks with a cache point after them.
pub(crate) fn cached_system(mut system: Vec<Block<'_>>) -> Vec<Block<'_>> {
    if !system.is_empty() {
        cache_point(&mut system);
    }
    system
}

fn tool_use(call: &ToolCall) -> Block<'_> {
    Block::ToolUse(ToolUse {
        tool_use_id: &call.id,
        name: &call.name,
        input: arguments_object(&call.arguments),
    })
}

/// An image or a PDF in the Converse API's own blocks, text as text; anything else in
/// words. The Converse API takes media as bytes (or from S3), never from a web URL: a
/// part linked by URL is sent as a text line saying it was left out.
fn part_block<'a>(part: &ContentPart, documents: &mut usize) -> Block<'a> {
    if let Some(text) = part.as_text() {
        return Block::Text(Cow::Owned(text.to_owned()));
    }
    let Some(bytes) = part.base64() else {
        return Block::Text(Cow::Owned(omitted(part, PROVIDER)));
    };
    let source = || Source {
        bytes: bytes.clone(),
    };
    let image = match part.mime_type() {
        "image/png" => Some("png"),
        "image/jpeg" => Some("jpeg"),
        "image/gif" => Some("gif"),
        "image/webp" => Some("webp"),
        _ => None,
    };
    match (part.kind(), image) {
        (PartKind::Image, Some(format)) => Block::Image(Media {
            format,
            source: source(),
        }),
        (PartKind::File, _) if part.mime_type() == "application/pdf" => {
            // Names are letters, digits, spaces, hyphens, parentheses and brackets, and
            // differ within a request.
            *documents += 1;
            Block::Document(Document {
                format: "pdf",
                name: format!("document {}", *documents),
                source: source(),
            })
        }
        _ => Block::Text(Cow::Owned(omitted(part, PROVIDER))),
    }
}

#[cfg(test)]
mod tests {
    use super::{Family, caches, family};

    #[test]
    fn families_and_caching() {
        assert_eq!(
            family("us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
            (Family::Claude, "anthropic.claude-sonnet-4-5-20250929-v1:0")
        );
        assert_eq!(family("amazon.nova-pro-v1:0").0, Family::Nova);
        assert_eq!(family("openai.gpt-oss-120b-1:0").0, Family::GptOss);
        assert_eq!(family("meta.llama3-70b-instruct-v1:0").0, Family::Other);
        for model in [
            "anthropic.claude-sonnet-4-5-v1:0",
            "eu.anthropic.claude-3-7-sonnet-20250219-v1:0",
            "anthropic.claude-opus-4-1-20250805-v1:0",
            "anthropic.claude-3-5-haiku-20241022-v1:0",
            "amazon.nova-lite-v1:0",
        ] {
            assert!(caches(model), "{model}");
        }
        for model in [
            "anthropic.claude-3-haiku-20240307-v1:0",
            "anthropic.claude-v2",
            "meta.llama3-70b-instruct-v1:0",
            "arn:aws:bedrock:us-east-1:123:application-inference-profile/abc",
        ] {
            assert!(!caches(model), "{model}");
        }
    }
}
