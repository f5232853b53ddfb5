//! What OpenAI's two APIs (Chat Completions and Responses) share in honouring
//! [`ModelSettings`]: which models take no sampling settings, the reasoning efforts the
//! API knows, and the checks every turn of either makes.

use crate::model::ModelError;
use crate::model::settings::{ModelSettings, ToolChoice};
use crate::providers::common::settings::{check_common, refuse};
use crate::tool::kit::Toolkit;

/// Defines `$ty`'s `SPEC` and its `new` and `from_env` constructors (see
/// `provider_spec!`) with OpenAI's key variable, base-URL variable, default base URL and
/// bearer key, which both of OpenAI's APIs take; `$provider` is the name errors say.
macro_rules! openai_spec {
    ($ty:ident, $provider:expr) => {
        $crate::providers::common::skeleton::provider_spec!($ty {
            provider: $provider,
            key_var: "OPENAI_API_KEY",
            base_var: "OPENAI_BASE_URL",
            default_base: "https://api.openai.com/v1",
            auth: $crate::providers::common::http::Auth::Bearer,
            headers: &[],
        });
    };
}
pub(crate) use openai_spec;

/// The efforts OpenAI's `reasoning_effort` / `reasoning.effort` take.
pub(crate) const EFFORTS: [&str; 7] = ["none", "minimal", "low", "medium", "high", "xhigh", "max"];

/// Whether `model` is one of OpenAI's reasoning families (the o-series, GPT-5 but its
/// `-chat` models), whose responses carry reasoning items. Others refuse
/// `include: ["reasoning.encrypted_content"]`.
pub(crate) fn is_reasoning_model(model: &str) -> bool {
    let name = base_name(model);
    is_o_series(name) || (name.starts_with("gpt-5") && !name.contains("-chat"))
}

/// `model` without the prefix a gateway may give it (`openai/gpt-5` → `gpt-5`).
fn base_name(model: &str) -> &str {
    model.rsplit('/').next().unwrap_or(model)
}

/// Whether `name` is one of the o-series (`o1`, `o3`, `o4-mini`, …).
fn is_o_series(name: &str) -> bool {
    ["o1", "o3", "o4"]
        .iter()
        .any(|p| name == *p || name.starts_with(&format!("{p}-")))
}

/// Why `model` takes no `temperature` or `top_p` with `effort`, if it does not.
///
/// OpenAI documents the o-series (`o1`, `o3`, `o4-mini`, …) and the first GPT-5 models
/// (`gpt-5`, `gpt-5-mini`, `gpt-5-nano`, …; not the `-chat` ones) as reasoning-only:
/// they refuse sampling settings. From `gpt-5.1` on, a model takes them only with
/// reasoning effort `none` (its default).
pub(crate) fn sampling_refused(model: &str, effort: Option<&str>) -> Option<String> {
    let name = base_name(model);
    if is_o_series(name) {
        return Some(format!(
            "`{name}` is a reasoning-only model, which takes no sampling settings"
        ));
    }
    let rest = name.strip_prefix("gpt-5")?;
    if name.contains("-chat") {
        return None;
    }
    if rest.is_empty() || rest.starts_with('-') {
        return Some(format!(
            "`{name}` is a reasoning-only model, which takes no sampling settings"
        ));
    }
    match effort {
        Some(effort) if rest.starts_with('.') && effort != "none" => Some(format!(
            "`{name}` takes sampling settings only with reasoning effort `none`, and this \
             turn's effort is `{effort}`"
        )),
        _ => None,
    }
}

/// The checks both OpenAI APIs make before a turn is sent: the shared ones, sampling on
/// a reasoning model, the effort's spelling, no token budget (OpenAI has none).
pub(crate) fn check(
    provider: &str,
    model: &str,
    settings: &ModelSettings,
    toolkit: &Toolkit,
) -> Result<(), ModelError> {
    check_common(provider, settings, toolkit)?;
    let reasoning = settings.reasoning.as_ref();
    if let Some(budget) = reasoning.and_then(|r| r.budget_tokens) {
        return Err(refuse(
            provider,
            "reasoning",
            format!(
                "OpenAI takes a reasoning effort, not a token budget ({budget}); use \
                 Reasoning::effort(\"low\" | \"medium\" | \"high\" | …)"
            ),
        ));
    }
    let effort = reasoning.and_then(|r| r.effort.as_deref());
    if let Some(effort) = effort
        && !EFFORTS.contains(&effort)
    {
        return Err(refuse(
            provider,
            "reasoning",
            format!(
                "OpenAI knows no effort `{effort}` (one of {})",
                EFFORTS.join(", ")
            ),
        ));
    }
    for (setting, set) in [
        ("temperature", settings.temperature.is_some()),
        ("top_p", settings.top_p.is_some()),
    ] {
        if set && let Some(why) = sampling_refused(model, effort) {
            return Err(refuse(provider, setting, why));
        }
    }
    Ok(())
}

/// The tool choice as Chat Completions and Responses both spell its modes.
pub(crate) fn mode(choice: &ToolChoice) -> Option<&'static str> {
    match choice {
        ToolChoice::Auto => Some("auto"),
        ToolChoice::Required => Some("required"),
        ToolChoice::None => Some("none"),
        ToolChoice::Tool(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::{is_reasoning_model, sampling_refused};

    #[test]
    fn reasoning_only_models_are_named() {
        for model in [
            "o3",
            "o4-mini",
            "o1-preview",
            "gpt-5",
            "gpt-5-mini",
            "openai/gpt-5-nano",
        ] {
            assert!(sampling_refused(model, None).is_some(), "{model}");
        }
        for model in [
            "gpt-4.1-mini",
            "gpt-5-chat-latest",
            "gpt-5.1",
            "qwen3",
            "o3x",
            "gpt-4o",
        ] {
            assert!(sampling_refused(model, None).is_none(), "{model}");
        }
        assert!(sampling_refused("gpt-5.1", Some("none")).is_none());
        assert!(sampling_refused("gpt-5.1", Some("high")).is_some());
        assert!(is_reasoning_model("gpt-5.1") && is_reasoning_model("o4-mini"));
        assert!(!is_reasoning_model("gpt-4.1") && !is_reasoning_model("gpt-5-chat-latest"));
    }
}
