//! [`Tool`]: one named, described, schema-carrying, executable tool.

use std::borrow::Cow;
use std::fmt;
use std::future::Future;
use std::sync::Arc;

use serde_json::Value;

use crate::schema::entry::{Entries, Entry, EntrySource};
use crate::schema::output::OutputSchema;
use crate::schema::profile::{self, Profile, ProfileError};
use crate::tool::approval;
use crate::tool::args::Args;
use crate::tool::context::Context;
use crate::tool::handler::{Dispatch, Handler};
use crate::tool::result::ToolResult;
use crate::tool::state::StateType;

/// A tool's parts (those its calls read are seen from `call.rs`, which runs them).
pub(super) struct Inner {
    name: String,
    description: String,
    schema: Value,
    source: Cow<'static, str>,
    pub(super) handler: Arc<Handler>,
    /// The schema of the structured value a success carries, if the tool declares one.
    pub(super) output: Option<OutputSchema>,
    /// The tool in each provider's shape, built on first use.
    entries: Entries,
    /// Top-level properties that are optional and do not accept `null` (see `Tool::call`).
    pub(super) optional_nulls: Vec<String>,
    /// The shared states the tool reads (see `Tool::required_states`).
    states: Vec<StateType>,
    /// With an approval gate (see `Tool::with_approval`): its prompt, and the handler
    /// behind the gate.
    approval: Option<(Option<String>, Arc<Handler>)>,
    /// Long-running: may run as a task (see `Tool::with_task`).
    task: bool,
    /// The MCP Apps view and visibility: the tool's `_meta.ui` (see `Tool::with_ui`).
    ui: Option<ToolUi>,
}

/// What a tool says about its MCP Apps view (the `io.modelcontextprotocol/ui` extension):
/// the `ui://` resource that renders its calls, and who may call it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToolUi {
    /// The `ui://` URI of the view's resource (`_meta.ui.resourceUri`).
    pub resource_uri: Option<String>,
    /// Who may call the tool: `"model"`, `"app"` (a view of the same server), or both when
    /// empty (`_meta.ui.visibility`).
    pub visibility: Vec<String>,
}

impl ToolUi {
    /// The tool's `_meta` object: `{"ui": {"resourceUri", "visibility"}}`, plus the flat
    /// `"ui/resourceUri"` key that hosts written before the nested form still read.
    pub fn meta(&self) -> serde_json::Map<String, Value> {
        let mut ui = serde_json::Map::new();
        let mut meta = serde_json::Map::new();
        if let Some(uri) = &self.resource_uri {
            ui.insert("resourceUri".to_owned(), Value::from(uri.as_str()));
            meta.insert("ui/resourceUri".to_owned(), Value::from(uri.as_str()));
        }
        if !self.visibility.is_empty() {
            ui.insert(
                "visibility".to_owned(),
                Value::from(self.visibility.clone()),
            );
        }
        meta.insert("ui".to_owned(), Value::Object(ui));
        meta
    }
}

/// A tool: a name, a description, a JSON schema for its arguments, and a handler.
///
/// Cheap to clone (one reference count). The schema is built once, when the tool is
/// made; the provider forms of it (see [`Toolkit::to_openai`](crate::Toolkit::to_openai)
/// and friends) are built on first use and then shared.
///
/// Make one with `#[tool]` on a function (`my_fn::tool()`), or by hand with [`Tool::new`]:
///
/// ```
/// use serde_json::json;
/// use toolnexus::{Context, Tool, ToolResult};
///
/// let shout = Tool::new(
///     "shout",
///     "Upper-cases a text.",
///     json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
///     |args, _ctx| async move {
///         match args["text"].as_str() {
///             Some(text) => ToolResult::ok(text.to_uppercase()),
///             None => ToolResult::error("shout: `text` must be a string"),
///         }
///     },
/// );
/// # tokio_test_block_on(async {
/// let result = shout.execute(json!({"text": "hi"}), Context::default()).await;
/// assert_eq!(result.output, "HI");
/// # });
/// # fn tokio_test_block_on<F: std::future::Future>(f: F) -> F::Output {
/// #     tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(f)
/// # }
/// ```
#[derive(Clone)]
pub struct Tool(pub(super) Arc<Inner>);

impl Tool {
    /// A tool from an async closure over the raw JSON arguments.
    ///
    /// `name` is sanitized (see [`sanitize_name`]); `schema` is used as given and should
    /// describe an object. Raw-text arguments are parsed before `f` is called; text that
    /// is not JSON gives an error result without calling `f`.
    pub fn new<F, Fut>(
        name: impl Into<String>,
        description: impl Into<String>,
        schema: Value,
        f: F,
    ) -> Tool
    where
        F: Fn(Value, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ToolResult> + Send + 'static,
    {
        let name = sanitize_name(&name.into());
        let label = name.clone();
        Tool::from_handler(
            name,
            description.into(),
            schema,
            Cow::Borrowed("custom"),
            Box::new(move |args: Args<'_>, ctx| match args.into_value(&label) {
                Ok(value) => Dispatch::Future(Box::pin(f(value, ctx))),
                Err(error) => Dispatch::Ready(error.into()),
            }),
        )
    }

    /// A tool from a synchronous closure over the raw JSON arguments (no future is
    /// allocated per call).
    pub fn new_sync<F>(
        name: impl Into<String>,
        description: impl Into<String>,
        schema: Value,
        f: F,
    ) -> Tool
    where
        F: Fn(Value, &Context) -> ToolResult + Send + Sync + 'static,
    {
        let name = sanitize_name(&name.into());
        let label = name.clone();
        Tool::from_handler(
            name,
            description.into(),
            schema,
            Cow::Borrowed("custom"),
            Box::new(move |args: Args<'_>, ctx| {
                Dispatch::Ready(match args.into_value(&label) {
                    Ok(value) => f(value, &ctx),
                    Err(error) => error.into(),
                })
            }),
        )
    }

    /// The lowest-level constructor: a handler that reads [`Args`] itself. This is what
    /// `#[tool]` expands to; prefer [`Tool::new`] by hand.
    ///
    /// `name` is sanitized; `source` says where the tool comes from (`"native"` for
    /// `#[tool]` functions, `"custom"` for [`Tool::new`], `"mcp"` for remote tools, …).
    pub fn from_handler(
        name: impl Into<String>,
        description: impl Into<String>,
        schema: Value,
        source: impl Into<Cow<'static, str>>,
        handler: Box<Handler>,
    ) -> Tool {
        let optional_nulls = optional_non_nullable(&schema);
        Tool(Arc::new(Inner {
            name: sanitize_name(&name.into()),
            description: description.into(),
            schema,
            source: source.into(),
            handler: Arc::from(handler),
            output: None,
            entries: Entries::default(),
            optional_nulls,
            states: Vec::new(),
            approval: None,
            task: false,
            ui: None,
        }))
    }

    /// The same tool with an output schema: the JSON schema of the structured value its
    /// successful results carry ([`ToolResult::structured`]). `#[tool]` sets it for a
    /// function returning [`Json<T>`](crate::Json); set it by hand for a tool built with
    /// [`Tool::new`], whose results then carry their value through
    /// [`ToolResult::with_structured`].
    ///
    /// MCP wants an object at the root of structured content. A `schema` that describes
    /// objects only (`"type": "object"` at its root, or a `oneOf`/`anyOf` of object
    /// schemas) is kept as it is; any other is wrapped: it becomes the schema of the one
    /// required property `result` of an object, and each successful result's structured
    /// value `v` becomes `{"result": v}` when the call finishes. Error results and
    /// suspensions carry no structured value.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolnexus::{Context, Tool, ToolResult};
    ///
    /// let roll = Tool::new_sync("roll", "Rolls two dice.", json!({"type": "object"}), |_, _| {
    ///     ToolResult::ok("[3,5]").with_structured(json!([3, 5]))
    /// })
    /// .with_output_schema(json!({"type": "array", "items": {"type": "integer"}}));
    ///
    /// assert_eq!(roll.output_schema(), Some(&json!({
    ///     "type": "object",
    ///     "properties": {"result": {"type": "array", "items": {"type": "integer"}}},
    ///     "required": ["result"],
    ///     "additionalProperties": false
    /// })));
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let result = roll.execute(json!({}), Context::default()).await;
    /// assert_eq!(result.output, "[3,5]");
    /// assert_eq!(result.structured(), Some(&json!({"result": [3, 5]})));
    /// # });
    /// ```
    #[must_use]
    pub fn with_output_schema(self, schema: Value) -> Tool {
        let output = Some(OutputSchema::new(schema));
        self.modified(|inner| {
            inner.output = output;
            // The MCP entry lists the output schema.
            inner.entries = Entries::default();
        })
    }

    /// This tool changed by `change`: in place when this is the only handle, else a new
    /// tool with the same handler, so clones handed out before keep what they had.
    fn modified(self, change: impl FnOnce(&mut Inner)) -> Tool {
        let mut inner = match Arc::try_unwrap(self.0) {
            Ok(inner) => inner,
            Err(shared) => Inner {
                name: shared.name.clone(),
                description: shared.description.clone(),
                schema: shared.schema.clone(),
                source: shared.source.clone(),
                handler: Arc::clone(&shared.handler),
                output: shared.output.clone(),
                entries: Entries::default(),
                optional_nulls: shared.optional_nulls.clone(),
                states: shared.states.clone(),
                approval: shared.approval.clone(),
                task: shared.task,
                ui: shared.ui.clone(),
            },
        };
        change(&mut inner);
        Tool(Arc::new(inner))
    }

    /// The same tool, asking for an approval before every call: the first execution of a
    /// call returns a pending [`Request`](crate::Request) of kind `"approval"` whose prompt
    /// names the tool and shows its arguments (and whose `data` holds both), and the tool
    /// runs only when the call is executed again with an `ok: true` [`Answer`](crate::Answer)
    /// to that very request. A declining answer gives an error result saying the call was
    /// not approved; an answer to anything else asks again. What `#[tool(approval)]` does.
    ///
    /// The request's id is derived from the tool's name, the call's arguments and its call
    /// id, so the gate keeps no state: the loop, [`resume`](crate::dispatch::resume), a halted run
    /// resumed in another process and both eras of MCP clients all reach the tool only
    /// through an approval of that call. The tool itself runs without the approval in its
    /// [`Context::answer`]; a tool that suspends again after its approval is asked for the
    /// approval again when that suspension is answered.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolnexus::{Context, Tool, ToolResult};
    ///
    /// let drop_table = Tool::new_sync("drop_table", "Drops a table.", json!({"type": "object"}), |args, _| {
    ///     ToolResult::ok(format!("dropped {}", args["table"]))
    /// })
    /// .with_approval();
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let ctx = Context::new().with_call_id("call_1");
    /// let asked = drop_table.execute(json!({"table": "users"}), ctx.clone()).await;
    /// let request = asked.pending_request().unwrap();
    /// assert_eq!(request.kind, "approval");
    /// assert_eq!(request.prompt, r#"Allow `drop_table` to run with {"table":"users"}?"#);
    ///
    /// let approved = ctx.with_answer(request.answer(true));
    /// let done = drop_table.execute(json!({"table": "users"}), approved).await;
    /// assert_eq!(done.output, r#"dropped "users""#);
    /// # });
    /// ```
    #[must_use]
    pub fn with_approval(self) -> Tool {
        self.approval_gate(None)
    }

    /// [`Tool::with_approval`] with `prompt` as the approval's prompt (what
    /// `#[tool(approval = "…")]` does); the arguments still travel in the request's `data`.
    #[must_use]
    pub fn with_approval_prompt(self, prompt: impl Into<String>) -> Tool {
        self.approval_gate(Some(prompt.into()))
    }

    fn approval_gate(self, prompt: Option<String>) -> Tool {
        self.modified(|inner| {
            let ungated = match inner.approval.take() {
                Some((_, ungated)) => ungated,
                None => Arc::clone(&inner.handler),
            };
            inner.handler =
                approval::gate(Arc::clone(&ungated), inner.name.clone(), prompt.clone());
            inner.approval = Some((prompt, ungated));
        })
    }

    /// Whether the tool asks for an approval before every call (see [`Tool::with_approval`]).
    pub fn requires_approval(&self) -> bool {
        self.0.approval.is_some()
    }

    /// The same tool, marked long-running (what `#[tool(task)]` does): a server that knows
    /// tasks (the MCP server, for clients that declare the tasks extension) answers a
    /// call at once with a task to poll, and runs the tool in the background. Executed
    /// directly, the tool behaves exactly as before.
    #[must_use]
    pub fn with_task(self) -> Tool {
        self.modified(|inner| inner.task = true)
    }

    /// Whether the tool is marked long-running (see [`Tool::with_task`]).
    pub fn is_task(&self) -> bool {
        self.0.task
    }

    /// The same tool with an MCP Apps view (what `#[tool(ui = "…")]` does): its listing
    /// on an MCP server (`McpServer`) carries `_meta.ui.resourceUri = uri`, and a
    /// host that speaks the `io.modelcontextprotocol/ui` extension renders the resource at
    /// `uri` (see [`McpApp`](crate::primitive::McpApp)) with the call's arguments and result.
    ///
    /// `uri` should start with `ui://` (the macro checks it at compile time); any other
    /// is listed as given, and hosts ignore it.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolnexus::{Tool, ToolResult};
    ///
    /// let chart = Tool::new_sync("chart", "Draws a chart.", json!({"type": "object"}), |_, _| {
    ///     ToolResult::ok("drawn")
    /// })
    /// .with_ui("ui://charts/view.html");
    /// assert_eq!(chart.ui().unwrap().resource_uri.as_deref(), Some("ui://charts/view.html"));
    /// ```
    #[must_use]
    pub fn with_ui(self, uri: impl Into<String>) -> Tool {
        let uri = uri.into();
        self.modified(|inner| {
            inner.ui.get_or_insert_with(ToolUi::default).resource_uri = Some(uri);
        })
    }

    /// The same tool, callable only by those in `visibility`: `"app"` for a tool only a
    /// view of the same server calls (hosts keep it from the model), `"model"` for one the
    /// model calls and views do not (what `#[tool(ui_visibility = "app")]` does).
    #[must_use]
    pub fn with_ui_visibility<S: Into<String>>(
        self,
        visibility: impl IntoIterator<Item = S>,
    ) -> Tool {
        let visibility: Vec<String> = visibility.into_iter().map(Into::into).collect();
        self.modified(|inner| {
            inner.ui.get_or_insert_with(ToolUi::default).visibility = visibility;
        })
    }

    /// The tool's MCP Apps view and visibility, if it has either (see [`Tool::with_ui`]).
    pub fn ui(&self) -> Option<&ToolUi> {
        self.0.ui.as_ref()
    }

    /// Declares that the tool reads a shared state of type `T` (through
    /// [`Context::state`]), so that [`Toolkit::check_states`](crate::Toolkit::check_states)
    /// reports it when missing, before any call. `#[tool]` functions and `#[toolset]`
    /// methods declare their `State<T>` parameters themselves.
    #[must_use]
    pub fn with_required_state<T: Send + Sync + 'static>(self) -> Tool {
        self.with_required_states([StateType::of::<T>()])
    }

    pub(crate) fn with_required_states(self, states: impl IntoIterator<Item = StateType>) -> Tool {
        self.modified(|inner| {
            for ty in states {
                if !inner.states.contains(&ty) {
                    inner.states.push(ty);
                }
            }
        })
    }

    /// The types of the shared states the tool reads: its `State<T>` parameters, or what
    /// [`Tool::with_required_state`] declared.
    pub fn required_states(&self) -> &[StateType] {
        &self.0.states
    }

    /// The tool's name, as the model calls it.
    pub fn name(&self) -> &str {
        &self.0.name
    }

    /// What the tool does, for the model.
    pub fn description(&self) -> &str {
        &self.0.description
    }

    /// The JSON schema of the arguments object.
    pub fn input_schema(&self) -> &Value {
        &self.0.schema
    }

    /// The JSON schema of the structured value a successful call carries
    /// ([`ToolResult::structured`]), always an object schema; `None` for a tool without
    /// one. A `#[tool]` function returning [`Json<T>`](crate::Json) has `T`'s schema,
    /// generated at compile time and self-contained like the input schema, with a `T`
    /// that is not an object wrapped as `{"result": …}` (see [`Tool::with_output_schema`]).
    pub fn output_schema(&self) -> Option<&Value> {
        self.0.output.as_ref().map(|output| &output.schema)
    }

    /// Whether the structured value wraps a non-object value as `{"result": …}` (see
    /// [`Tool::output_schema`]).
    #[cfg(feature = "code-mode")]
    pub(crate) fn output_wrapped(&self) -> bool {
        self.0.output.as_ref().is_some_and(|output| output.wrapped)
    }

    /// Where the tool comes from: `"native"` for `#[tool]` functions, `"custom"` for
    /// closures given to [`Tool::new`].
    pub fn source(&self) -> &str {
        &self.0.source
    }

    /// This tool in `profile`'s provider shape, built on first use and cached.
    pub(crate) fn entry(&self, profile: Profile) -> &Entry {
        let source = EntrySource {
            name: &self.0.name,
            description: &self.0.description,
            input_schema: &self.0.schema,
            output_schema: self.output_schema(),
        };
        self.0.entries.get(profile, source)
    }

    /// The tool's schema in `profile`'s dialect, computed on first use and cached (see
    /// [`crate::schema::profile`]); the error names this tool.
    pub fn profile(&self, profile: Profile) -> Result<&Value, &ProfileError> {
        let entry = self.entry(profile);
        match &entry.error {
            Some(error) => Err(error),
            None => Ok(entry.schema(profile)),
        }
    }
}

impl fmt::Debug for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tool")
            .field("name", &self.0.name)
            .field("description", &self.0.description)
            .field("source", &self.0.source)
            .field("input_schema", &self.0.schema)
            .field("output_schema", &self.output_schema())
            .finish_non_exhaustive()
    }
}

/// The top-level properties of `schema` that are not required and do not accept `null`.
fn optional_non_nullable(schema: &Value) -> Vec<String> {
    let Some(Value::Object(properties)) = schema.get("properties") else {
        return Vec::new();
    };
    let required = schema.get("required").and_then(Value::as_array);
    properties
        .iter()
        .filter(|(name, property)| {
            !required.is_some_and(|r| r.iter().any(|n| n == name.as_str()))
                && !profile::accepts_null(property)
        })
        .map(|(name, _)| name.clone())
        .collect()
}

/// Makes a tool name safe for every provider: each character outside `[a-zA-Z0-9_-]`
/// becomes `_`.
///
/// ```
/// assert_eq!(toolnexus::dispatch::sanitize_name("files.read v2"), "files_read_v2");
/// ```
pub fn sanitize_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}
