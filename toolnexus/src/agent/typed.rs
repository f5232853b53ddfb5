//! A run's typed output: [`RunRequest::typed`](crate::agent::RunRequest::typed), [`Typed`], [`TypedError`], and the checks
//! the loop makes on the final answer of a typed run (native structured output, or the
//! output tool).

use std::fmt;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::agent::resume::ResumeError;
use crate::agent::run::{CallRecord, CallStatus, RunResult, RunStatus, StopReason};
use crate::schema::output::{OutputSchema, WRAP_KEY};
use crate::tool::Tool;
use crate::tool::result::ToolResult;

/// The name of the output tool a typed run ends by calling, where the model has no
/// native structured output.
pub const OUTPUT_TOOL: &str = "final_result";

/// How a typed run asks for its output ([`Client::output_mode`](crate::Client::output_mode)).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OutputMode {
    /// The provider's own structured output where the model has it
    /// ([`ModelInfo::native_output`](crate::model::ModelInfo::native_output)) and it can hold the
    /// schema (Anthropic's takes what its strict profile accepts), else the output tool.
    #[default]
    Auto,
    /// The provider's structured output ([`ModelSettings::output`](crate::model::ModelSettings::output)): the final answer is
    /// JSON that follows the schema.
    Native,
    /// The output tool: the model ends the run by calling [`OUTPUT_TOOL`] with the
    /// answer as its arguments.
    Tool,
}

/// Reads a JSON value as a run's output type: why it is not one, if it is not.
type ReadFn = dyn Fn(&Value) -> Result<(), String> + Send + Sync;

/// The checks of one typed run's output: whichever way it is asked for, the text (or the
/// output tool's arguments) parsed as JSON and read as the run's output type.
pub(crate) struct OutputSpec {
    /// The schema the model is held to (an object: a non-object type is wrapped under
    /// `"result"`).
    pub(crate) schema: OutputSchema,
    /// Whether the run uses the output tool (else native structured output).
    tool: bool,
    /// Reads a JSON value (unwrapped) as the output type: its error names the field.
    read: Arc<ReadFn>,
}

impl fmt::Debug for OutputSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OutputSpec")
            .field("schema", &self.schema.schema)
            .field("tool", &self.tool)
            .finish_non_exhaustive()
    }
}

impl OutputSpec {
    pub(crate) fn new<T: DeserializeOwned + JsonSchema>(
        schema: OutputSchema,
        tool: bool,
    ) -> OutputSpec {
        OutputSpec {
            schema,
            tool,
            read: Arc::new(|value| {
                serde_path_to_error::deserialize::<_, T>(value)
                    .map(drop)
                    .map_err(|error| match error.path().to_string().as_str() {
                        "." => error.inner().to_string(),
                        path => format!("at `{path}`: {}", error.inner()),
                    })
            }),
        }
    }

    /// `value` (as the schema has it) read as the output: the output's JSON text, or why
    /// it is not one.
    fn check_value(&self, value: &Value) -> Result<String, String> {
        let inner = if self.schema.wrapped {
            value
                .get(WRAP_KEY)
                .ok_or_else(|| format!("the answer must be an object with the key `{WRAP_KEY}`"))?
        } else {
            value
        };
        (self.read)(inner)?;
        Ok(inner.to_string())
    }

    /// The model's text read as the output: the output's JSON text, or why it is not one.
    fn check_text(&self, text: &str) -> Result<String, String> {
        let json = strip_fence(text);
        let value: Value = serde_json::from_str(json)
            .map_err(|error| format!("the answer is not JSON ({error})"))?;
        self.check_value(&value)
    }

    /// What the model is told after output that did not validate.
    fn retry_text(&self, error: &str, by_tool: bool) -> String {
        match (self.tool, by_tool) {
            (true, true) => format!(
                "The final result did not validate: {error}. Call `{OUTPUT_TOOL}` again with \
                 arguments that follow its schema."
            ),
            (true, false) => format!(
                "Give your final answer by calling the `{OUTPUT_TOOL}` tool, with the answer \
                 as its arguments ({error})."
            ),
            (false, _) => format!(
                "Your answer did not validate: {error}. Answer again with JSON only, \
                 following the schema."
            ),
        }
    }

    /// The output tool, where the run uses one.
    pub(crate) fn output_tool(self: &Arc<Self>) -> Tool {
        let spec = Arc::clone(self);
        Tool::new_sync(
            OUTPUT_TOOL,
            "Give your final answer. Call this exactly once, when you are done (after any \
             other tools you need), with the answer as the arguments.",
            self.schema.schema.clone(),
            move |args, _| match spec.check_value(&args) {
                Ok(output) => {
                    ToolResult::ok("Final result received.").with_metadata(OUTPUT_KEY, output)
                }
                Err(error) => ToolResult::error(spec.retry_text(&error, true)),
            },
        )
    }
}

/// Whether the provider named `provider` can hold `schema` in its structured output
/// (Anthropic's takes its strict profile only; Gemini's, its profile): else a typed run
/// on it uses the output tool.
pub(crate) fn native_fits(provider: Option<&str>, schema: &Value) -> bool {
    use crate::schema::profile;
    match provider {
        Some("anthropic") => profile::anthropic_strict(schema).is_ok(),
        Some("gcp.gemini") => profile::gemini(schema).is_ok(),
        _ => profile::openai(schema).is_ok(),
    }
}

/// The metadata key of a valid output tool call's result: the output's JSON text.
const OUTPUT_KEY: &str = "toolnexus.output";

/// `text` without a Markdown code fence around it (models write ```json … ``` at times).
fn strip_fence(text: &str) -> &str {
    let trimmed = text.trim();
    let Some(inner) = trimmed.strip_prefix("```") else {
        return trimmed;
    };
    let Some(inner) = inner.strip_suffix("```") else {
        return trimmed;
    };
    // Past the info string (`json`) on the fence's first line.
    inner
        .split_once('\n')
        .map_or(inner, |(_, body)| body)
        .trim()
}

/// What the loop does with a typed run's answer.
pub(crate) enum Verdict {
    /// The output is valid: the run is done, with this JSON text as its text.
    Done(String),
    /// Send this back to the model (as a user turn after a text answer) and go on.
    Retry(String),
    /// Out of retries: the run stops with this reason.
    Fail(StopReason),
}

/// The output checks of one run, with the retries it has used.
pub(crate) struct OutputCheck<'s> {
    spec: &'s OutputSpec,
    retries: u32,
    used: u32,
}

impl<'s> OutputCheck<'s> {
    pub(crate) fn new(spec: &'s OutputSpec, retries: u32) -> Self {
        OutputCheck {
            spec,
            retries,
            used: 0,
        }
    }

    /// One more invalid output: retry (as `retry`) or fail.
    fn invalid(&mut self, error: String, retry: String) -> Verdict {
        if self.used < self.retries {
            self.used += 1;
            return Verdict::Retry(retry);
        }
        Verdict::Fail(StopReason::InvalidOutput {
            retries: self.retries,
            message: error,
        })
    }

    /// The model answered with text (no tool calls).
    pub(crate) fn answer(&mut self, text: &str) -> Verdict {
        match self.spec.check_text(text) {
            Ok(output) => Verdict::Done(output),
            Err(error) => {
                let retry = self.spec.retry_text(&error, false);
                self.invalid(error, retry)
            }
        }
    }

    /// A turn of tool calls was played: `None` when it had no output call (the run goes
    /// on); else done, retried (the error result already went back), or failed.
    pub(crate) fn calls(&mut self, records: &[CallRecord]) -> Option<Verdict> {
        let mut verdict = None;
        for record in records.iter().filter(|r| r.call.name == OUTPUT_TOOL) {
            let output = record
                .result
                .metadata
                .as_ref()
                .and_then(|m| m.get(OUTPUT_KEY))
                .and_then(Value::as_str);
            match (record.status, output) {
                (CallStatus::Ok, Some(output)) => return Some(Verdict::Done(output.to_owned())),
                _ => verdict = Some(record.result.output.clone()),
            }
        }
        let error = verdict?;
        Some(self.invalid(error, String::new()))
    }
}

/// The output of a typed run ([`RunRequest::typed`](crate::agent::RunRequest::typed)): the value, and the run that gave it.
///
/// `value` is `Some` when the run is [done](RunResult::is_done); `None` when it halted on
/// a suspension ([`RunResult::pending`]): answer it and resume with
/// [`ResumeRequest::typed`](crate::agent::ResumeRequest::typed) (or read a run finished elsewhere with [`Typed::from_run`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Typed<T> {
    /// The output, read as `T` (`None` while the run is halted).
    pub value: Option<T>,
    /// The run; its [`text`](RunResult::text) is the output's JSON.
    pub run: RunResult,
}

impl<T: DeserializeOwned> Typed<T> {
    /// The typed output of `run`: its value when it is done, `None` when it halted on a
    /// suspension; an error when it stopped early, or its text is not a `T`.
    pub fn from_run(run: RunResult) -> Result<Typed<T>, TypedError> {
        match &run.status {
            RunStatus::Done => {
                let value = serde_json::from_str(strip_fence(&run.text));
                match value {
                    Ok(value) => Ok(Typed {
                        value: Some(value),
                        run,
                    }),
                    Err(error) => Err(TypedError::InvalidOutput {
                        output: run.text.clone(),
                        message: error.to_string(),
                        run: Box::new(run),
                    }),
                }
            }
            RunStatus::Pending => Ok(Typed { value: None, run }),
            RunStatus::Incomplete {
                reason: StopReason::InvalidOutput { message, .. },
            } => Err(TypedError::InvalidOutput {
                output: run.text.clone(),
                message: message.clone(),
                run: Box::new(run),
            }),
            RunStatus::Incomplete { .. } => Err(TypedError::Incomplete { run: Box::new(run) }),
        }
    }

    /// Whether the run halted on a suspension (there is no value yet).
    pub fn is_pending(&self) -> bool {
        self.run.is_pending()
    }
}

/// Why a typed run gave no value.
#[derive(Debug)]
#[non_exhaustive]
pub enum TypedError {
    /// The model's output did not parse or validate as the output type, after
    /// [`output_retries`](crate::Client::output_retries) tries to correct it.
    InvalidOutput {
        /// The run (incomplete, [`StopReason::InvalidOutput`]).
        run: Box<RunResult>,
        /// The last output, as the model wrote it.
        output: String,
        /// What was wrong with it.
        message: String,
    },
    /// The run stopped before the model gave its output (see its stop reason).
    Incomplete {
        /// The run.
        run: Box<RunResult>,
    },
    /// [`ResumeRequest::typed`](crate::agent::ResumeRequest::typed) could not resume the halted run.
    Resume(ResumeError),
}

impl TypedError {
    /// The run, when there is one.
    pub fn run(&self) -> Option<&RunResult> {
        match self {
            TypedError::InvalidOutput { run, .. } | TypedError::Incomplete { run } => Some(run),
            TypedError::Resume(_) => None,
        }
    }
}

impl fmt::Display for TypedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TypedError::InvalidOutput {
                message, output, ..
            } => write!(
                f,
                "the run's output is not valid: {message} (last output: {:.200})",
                output
            ),
            TypedError::Incomplete { run } => match &run.status {
                RunStatus::Incomplete { reason } => {
                    write!(f, "the run stopped before its output: {reason}")
                }
                _ => f.write_str("the run stopped before its output"),
            },
            TypedError::Resume(error) => write!(f, "could not resume the typed run: {error}"),
        }
    }
}

impl std::error::Error for TypedError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TypedError::Resume(error) => Some(error),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema_of<T: JsonSchema>() -> OutputSchema {
        OutputSchema::new(crate::schema::canonical::schema_for::<T>())
    }

    #[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Review {
        approve: bool,
        reason: String,
    }

    #[test]
    fn output_is_read_as_the_type_with_the_field_named() {
        let spec = OutputSpec::new::<Review>(schema_of::<Review>(), false);
        assert!(!spec.schema.wrapped);
        let ok = spec.check_text("```json\n{\"approve\": true, \"reason\": \"ok\"}\n```");
        assert_eq!(ok.unwrap(), r#"{"approve":true,"reason":"ok"}"#);
        let bad = spec
            .check_text(r#"{"approve": "yes", "reason": "ok"}"#)
            .unwrap_err();
        assert!(bad.contains("at `approve`"), "{bad}");
        assert!(spec.check_text("sure!").unwrap_err().contains("not JSON"));
        let list = OutputSpec::new::<Vec<u8>>(schema_of::<Vec<u8>>(), true);
        assert!(list.schema.wrapped);
        assert_eq!(list.check_text(r#"{"result": [1, 2]}"#).unwrap(), "[1,2]");
    }

    #[test]
    fn retries_run_out() {
        let spec = OutputSpec::new::<Review>(schema_of::<Review>(), false);
        let mut check = OutputCheck::new(&spec, 1);
        assert!(matches!(check.answer("{}"), Verdict::Retry(_)));
        assert!(matches!(
            check.answer("{}"),
            Verdict::Fail(StopReason::InvalidOutput { retries: 1, .. })
        ));
    }
}
