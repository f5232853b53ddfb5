//! What the providers share in honouring [`ModelSettings`]: the error that names a
//! setting a provider cannot honour, the checks every provider makes alike, and adding
//! `extra` fields to a request body.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::model::ModelError;
use crate::model::settings::{ModelSettings, ToolChoice};
use crate::tool::kit::Toolkit;

/// The error for a setting `provider` cannot honour: it names both and says why.
pub(crate) fn refuse(provider: &str, setting: &str, why: impl std::fmt::Display) -> ModelError {
    ModelError::new(format!(
        "{provider}: the setting `{setting}` cannot be sent: {why} (nothing was sent)"
    ))
}

/// The sampling settings as Gemini's `generationConfig` and Bedrock's `inferenceConfig`
/// both write them (`temperature`, `topP`, `stopSequences`), flattened into each.
#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SamplingParams<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    top_p: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stop_sequences: Option<&'a [String]>,
}

impl<'a> SamplingParams<'a> {
    /// The sampling `settings` ask for.
    pub(crate) fn of(settings: &'a ModelSettings) -> Self {
        SamplingParams {
            temperature: settings.temperature,
            top_p: settings.top_p,
            stop_sequences: settings.stop.as_deref(),
        }
    }

    /// Whether none is set.
    pub(crate) fn is_empty(&self) -> bool {
        self.temperature.is_none() && self.top_p.is_none() && self.stop_sequences.is_none()
    }
}

/// The smallest thinking budget Claude takes (through Anthropic's API or Bedrock's).
pub(crate) const MIN_THINKING_BUDGET: u32 = 1024;

/// The error for a thinking `budget` below [`MIN_THINKING_BUDGET`].
pub(crate) fn budget_too_small(provider: &str, budget: u32) -> ModelError {
    refuse(
        provider,
        "reasoning",
        format!(
            "the thinking budget must be at least {MIN_THINKING_BUDGET} tokens ({budget} given)"
        ),
    )
}

/// The token cap of a turn that may think within `budget`: the cap `max` that is set,
/// which must be above the budget, else the budget plus `above`; none when neither is
/// set.
pub(crate) fn cap_above_budget(
    provider: &str,
    max: Option<u32>,
    budget: Option<u32>,
    above: u32,
) -> Result<Option<u32>, ModelError> {
    match (max, budget) {
        (Some(max), Some(budget)) if max <= budget => Err(refuse(
            provider,
            "max_tokens",
            format!("it must be above the thinking budget ({max} ≤ {budget})"),
        )),
        (Some(max), _) => Ok(Some(max)),
        (None, Some(budget)) => Ok(Some(budget.saturating_add(above))),
        (None, None) => Ok(None),
    }
}

/// Refuses a forced tool call (`Required`, or a named tool) on a turn where Claude
/// `thinks`: the API refuses it. `why` says which choices it takes.
pub(crate) fn unforced_while_thinking(
    provider: &str,
    thinks: bool,
    settings: &ModelSettings,
    why: &str,
) -> Result<(), ModelError> {
    if thinks
        && matches!(
            settings.tool_choice,
            Some(ToolChoice::Required | ToolChoice::Tool(_))
        )
    {
        return Err(refuse(provider, "tool_choice", why));
    }
    Ok(())
}

/// Refuses the first of `settings` (each a name and whether it is set) that is set,
/// saying `why`: the fields a provider's API does not have.
pub(crate) fn refuse_set(
    provider: &str,
    settings: &[(&str, bool)],
    why: &str,
) -> Result<(), ModelError> {
    match settings.iter().find(|(_, set)| *set) {
        Some((setting, _)) => Err(refuse(provider, setting, why)),
        None => Ok(()),
    }
}

/// Checks what every provider checks alike: a named tool choice is in the toolkit, a
/// required one has tools to choose from, the reasoning is not both an effort and a
/// budget, and `extra` is an object.
pub(crate) fn check_common(
    provider: &str,
    settings: &ModelSettings,
    toolkit: &Toolkit,
) -> Result<(), ModelError> {
    match &settings.tool_choice {
        Some(ToolChoice::Tool(name)) if toolkit.get(name).is_none() => {
            let mut names: Vec<&str> = toolkit.tools().iter().map(|t| t.name()).collect();
            names.truncate(20);
            return Err(refuse(
                provider,
                "tool_choice",
                format!(
                    "it names the tool `{name}`, which is not in the toolkit of this turn \
                     (tools: {})",
                    if names.is_empty() {
                        "none".to_owned()
                    } else {
                        names.join(", ")
                    }
                ),
            ));
        }
        Some(ToolChoice::Required) if toolkit.is_empty() => {
            return Err(refuse(
                provider,
                "tool_choice",
                "`Required` asks for a tool call, and the toolkit of this turn is empty",
            ));
        }
        _ => {}
    }
    if let Some(reasoning) = &settings.reasoning
        && let (Some(effort), Some(budget)) = (&reasoning.effort, reasoning.budget_tokens)
    {
        return Err(refuse(
            provider,
            "reasoning",
            format!(
                "it has both an effort (`{effort}`) and a token budget ({budget}); they \
                 conflict: keep one (the client's settings merge over the model's field by \
                 field)"
            ),
        ));
    }
    if let Some(extra) = &settings.extra
        && !extra.is_object()
    {
        return Err(refuse(
            provider,
            "extra",
            format!("it must be a JSON object, not {extra}"),
        ));
    }
    if settings
        .stop
        .as_ref()
        .is_some_and(|s| s.iter().any(String::is_empty))
    {
        return Err(refuse(provider, "stop", "a stop sequence is empty"));
    }
    Ok(())
}

/// The `extra` object of `settings`, when it has keys.
pub(crate) fn extra_fields(settings: &ModelSettings) -> Option<&Map<String, Value>> {
    settings
        .extra
        .as_ref()
        .and_then(Value::as_object)
        .filter(|m| !m.is_empty())
}

/// `body` (a JSON object, as written) with `extra`'s fields added to its top level:
/// objects in both are merged key by key, and a key both have with other values is an
/// error naming it. Only a request with `extra` pays for the parse.
pub(crate) fn with_extra(
    provider: &str,
    body: Vec<u8>,
    extra: Option<&Map<String, Value>>,
) -> Result<Vec<u8>, ModelError> {
    let Some(extra) = extra else {
        return Ok(body);
    };
    let mut value: Value = serde_json::from_slice(&body).map_err(|e| {
        ModelError::with_source(format!("{provider}: could not write the request"), e)
    })?;
    let Some(object) = value.as_object_mut() else {
        return Ok(body);
    };
    merge_into(provider, object, extra, "")?;
    serde_json::to_vec(&value)
        .map_err(|e| ModelError::with_source(format!("{provider}: could not write the request"), e))
}

fn merge_into(
    provider: &str,
    into: &mut Map<String, Value>,
    from: &Map<String, Value>,
    path: &str,
) -> Result<(), ModelError> {
    for (key, value) in from {
        let here = format!("{path}/{key}");
        match (into.get_mut(key), value) {
            (None, _) => {
                into.insert(key.clone(), value.clone());
            }
            (Some(Value::Object(inner)), Value::Object(more)) => {
                merge_into(provider, inner, more, &here)?;
            }
            (Some(existing), _) if existing == value => {}
            (Some(existing), _) => {
                return Err(refuse(
                    provider,
                    "extra",
                    format!(
                        "it sets `{here}` to {value}, which the request already has as \
                         {existing}; use the typed setting instead"
                    ),
                ));
            }
        }
    }
    Ok(())
}
