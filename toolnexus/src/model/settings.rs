//! [`ModelSettings`]: how a model is asked (sampling, length, tool choice, reasoning), set
//! on a provider with `with_settings` and per client with
//! [`Client::settings`](crate::Client::settings)(crate::Client::settings), merged field by field.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How a model is asked: sampling, length, tool choice, reasoning, stop sequences, seed,
/// and fields only one provider has.
///
/// Set on a provider (`OpenAi::with_settings`, `Anthropic::with_settings`, …) and on a
/// [`Client`](crate::Client) ([`Client::settings`](crate::Client::settings)); the client's are merged over the model's, field by
/// field ([`ModelSettings::over`]). Every field is optional: unset, the provider's default
/// applies.
///
/// A provider that cannot honour a setting (a temperature on a reasoning-only model, a
/// [`ToolChoice::tool`] the toolkit does not have, a seed the API has no field for), or
/// settings that conflict (a reasoning effort and a token budget), fails the turn with a
/// [`ModelError`](crate::ModelError) naming the provider and the setting, before anything is sent: nothing is
/// silently dropped. The providers guide has the table of which provider honours what.
///
/// ```
/// use toolnexus::{ModelSettings, Reasoning, ToolChoice};
///
/// let model = ModelSettings::new()
///     .temperature(0.2)
///     .max_tokens(2_000)
///     .tool_choice(ToolChoice::Required)
///     .reasoning(Reasoning::effort("high"));
/// let client = ModelSettings::new().temperature(0.0).tool_choice(ToolChoice::tool("search"));
/// let merged = client.over(&model);
/// assert_eq!(merged.temperature, Some(0.0));
/// assert_eq!(merged.max_tokens, Some(2_000));
/// assert_eq!(merged.tool_choice, Some(ToolChoice::tool("search")));
/// assert_eq!(merged.reasoning, Some(Reasoning::effort("high")));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ModelSettings {
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Nucleus sampling: the probability mass the tokens are drawn from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    /// The most tokens one turn may write (reasoning included where the provider counts
    /// it there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// Whether, and which, tools the model must call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    /// Whether the model may ask for several calls in one turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallel_tool_calls: Option<bool>,
    /// How much the model thinks before it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<Reasoning>,
    /// Texts that end the turn when the model writes them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Vec<String>>,
    /// A seed for reproducible sampling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<i64>,
    /// A JSON schema the final answer must follow, in the provider's own structured
    /// output (OpenAI `response_format` / Responses `text.format`, Anthropic
    /// `output_config.format`, Gemini `responseSchema`); set by
    /// [`RunRequest::typed`](crate::agent::RunRequest::typed). A provider without it refuses it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<OutputFormat>,
    /// Fields of the provider's request body that have no setting here, added to its top
    /// level (an object in both is merged key by key). Must be a JSON object; a key the
    /// request already has with another value is an error naming it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra: Option<Value>,
}

/// Which tools the model must call ([`ModelSettings::tool_choice`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ToolChoice {
    /// The model decides (every provider's default when tools are listed).
    Auto,
    /// The model must call at least one tool.
    Required,
    /// The model must not call tools (they stay listed, so the transcript's calls keep
    /// their meaning).
    None,
    /// The model must call this tool; see [`ToolChoice::tool`].
    Tool(String),
}

impl ToolChoice {
    /// The model must call the tool named `name`, which must be in the toolkit of the
    /// turn (else the turn fails before anything is sent).
    pub fn tool(name: impl Into<String>) -> Self {
        ToolChoice::Tool(name.into())
    }
}

/// A JSON schema for a model's final answer ([`ModelSettings::output`]): a name and the
/// canonical schema (an object), which each provider fits to its own dialect (OpenAI's
/// strict mode when the schema allows it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct OutputFormat {
    /// The schema's name (`[a-zA-Z0-9_-]`, as OpenAI requires).
    pub name: String,
    /// The schema: an object schema, as toolnexus generates them.
    pub schema: Value,
}

impl OutputFormat {
    /// The final answer must be JSON following `schema`, named `name`.
    pub fn json_schema(name: impl Into<String>, schema: Value) -> Self {
        OutputFormat {
            name: name.into(),
            schema,
        }
    }
}

/// How much a model reasons before it answers ([`ModelSettings::reasoning`]): an effort
/// (OpenAI's `reasoning.effort`, Anthropic's `output_config.effort`, Gemini's
/// `thinkingLevel`) or a token budget (Anthropic's `thinking.budget_tokens`, Gemini's
/// `thinkingBudget`), and whether the provider should return summaries of it.
///
/// The fields merge one by one like the rest of [`ModelSettings`], so a client's effort
/// over a model's budget gives both, which every provider refuses as a conflict.
///
/// ```
/// use toolnexus::Reasoning;
///
/// let openai = Reasoning::effort("high").with_summary("auto");
/// let claude = Reasoning::budget(8_000);
/// assert_eq!(claude.budget_tokens, Some(8_000));
/// assert_eq!(openai.effort.as_deref(), Some("high"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Reasoning {
    /// The effort, in the providers' shared words: `none`, `minimal`, `low`, `medium`,
    /// `high`, `xhigh`, `max` (each provider takes its own subset).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<String>,
    /// The most tokens the model may think with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_tokens: Option<u32>,
    /// Summaries of the reasoning, where the provider offers them: `auto`, `concise`,
    /// `detailed`, or `none` for none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
}

impl Reasoning {
    /// Reasoning at this effort (`"low"`, `"medium"`, `"high"`, …).
    pub fn effort(effort: impl Into<String>) -> Self {
        Reasoning {
            effort: Some(effort.into()),
            ..Reasoning::default()
        }
    }

    /// Reasoning within this many tokens.
    pub fn budget(tokens: u32) -> Self {
        Reasoning {
            budget_tokens: Some(tokens),
            ..Reasoning::default()
        }
    }

    /// Sets the effort too.
    #[must_use]
    pub fn with_effort(mut self, effort: impl Into<String>) -> Self {
        self.effort = Some(effort.into());
        self
    }

    /// Sets the token budget too.
    #[must_use]
    pub fn with_budget(mut self, tokens: u32) -> Self {
        self.budget_tokens = Some(tokens);
        self
    }

    /// Asks for summaries of the reasoning (`"auto"`, `"concise"`, `"detailed"`; `"none"`
    /// for none).
    #[must_use]
    pub fn with_summary(mut self, summary: impl Into<String>) -> Self {
        self.summary = Some(summary.into());
        self
    }

    /// These fields, each over `base`'s.
    #[must_use]
    pub fn over(&self, base: &Reasoning) -> Reasoning {
        Reasoning {
            effort: self.effort.clone().or_else(|| base.effort.clone()),
            budget_tokens: self.budget_tokens.or(base.budget_tokens),
            summary: self.summary.clone().or_else(|| base.summary.clone()),
        }
    }

    /// Whether reasoning is asked for at all: not with effort `none` or a budget of 0.
    pub fn is_on(&self) -> bool {
        self.effort.as_deref() != Some("none") && self.budget_tokens != Some(0)
    }
}

impl ModelSettings {
    /// No settings: every provider default applies.
    pub fn new() -> Self {
        ModelSettings::default()
    }

    /// Sets the sampling temperature.
    #[must_use]
    pub fn temperature(mut self, temperature: f64) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// Sets nucleus sampling's probability mass.
    #[must_use]
    pub fn top_p(mut self, top_p: f64) -> Self {
        self.top_p = Some(top_p);
        self
    }

    /// Caps the tokens of each turn.
    #[must_use]
    pub fn max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = Some(max_tokens);
        self
    }

    /// Sets whether, and which, tools the model must call.
    #[must_use]
    pub fn tool_choice(mut self, choice: ToolChoice) -> Self {
        self.tool_choice = Some(choice);
        self
    }

    /// Allows, or forbids, several calls in one turn.
    #[must_use]
    pub fn parallel_tool_calls(mut self, parallel: bool) -> Self {
        self.parallel_tool_calls = Some(parallel);
        self
    }

    /// Sets how much the model reasons.
    #[must_use]
    pub fn reasoning(mut self, reasoning: Reasoning) -> Self {
        self.reasoning = Some(reasoning);
        self
    }

    /// Sets the stop sequences.
    #[must_use]
    pub fn stop<S: Into<String>>(mut self, stop: impl IntoIterator<Item = S>) -> Self {
        self.stop = Some(stop.into_iter().map(Into::into).collect());
        self
    }

    /// Sets the sampling seed.
    #[must_use]
    pub fn seed(mut self, seed: i64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// Asks for a final answer that follows `format` (the provider's structured output).
    #[must_use]
    pub fn output(mut self, format: OutputFormat) -> Self {
        self.output = Some(format);
        self
    }

    /// Adds provider-only fields to the request body (a JSON object), merged over any
    /// set before.
    #[must_use]
    pub fn extra(mut self, fields: Value) -> Self {
        self.extra = Some(merge_extra(Some(fields), self.extra.as_ref()).unwrap_or_default());
        self
    }

    /// Whether nothing is set.
    pub fn is_empty(&self) -> bool {
        *self == ModelSettings::default()
    }

    /// These settings, each field over `base`'s: a field set here wins, an unset one is
    /// `base`'s. [`Reasoning`] merges field by field too, and `extra` key by key.
    #[must_use]
    pub fn over(&self, base: &ModelSettings) -> ModelSettings {
        ModelSettings {
            temperature: self.temperature.or(base.temperature),
            top_p: self.top_p.or(base.top_p),
            max_tokens: self.max_tokens.or(base.max_tokens),
            tool_choice: self
                .tool_choice
                .clone()
                .or_else(|| base.tool_choice.clone()),
            parallel_tool_calls: self.parallel_tool_calls.or(base.parallel_tool_calls),
            reasoning: match (&self.reasoning, &base.reasoning) {
                (Some(top), Some(under)) => Some(top.over(under)),
                (top, under) => top.clone().or_else(|| under.clone()),
            },
            stop: self.stop.clone().or_else(|| base.stop.clone()),
            seed: self.seed.or(base.seed),
            output: self.output.clone().or_else(|| base.output.clone()),
            extra: merge_extra(self.extra.clone(), base.extra.as_ref()),
        }
    }
}

/// `top` over `base`: objects key by key (`top`'s keys win), anything else replaced.
fn merge_extra(top: Option<Value>, base: Option<&Value>) -> Option<Value> {
    match (top, base) {
        (Some(Value::Object(mut top)), Some(Value::Object(base))) => {
            for (key, value) in base {
                top.entry(key.clone()).or_insert_with(|| value.clone());
            }
            Some(Value::Object(top))
        }
        (Some(top), _) => Some(top),
        (None, base) => base.cloned(),
    }
}
