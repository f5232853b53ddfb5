//! Every attribute name and key the macro understands, in one place.

/// `#[tool(name = "…")]`: the tool's name as the model sees it.
pub(crate) const NAME: &str = "name";
/// `#[tool(description = "…")]`: replaces the doc comment as the description.
pub(crate) const DESCRIPTION: &str = "description";
/// `#[tool(crate = "…")]`: the path to the `toolnexus` crate, when it is re-exported.
pub(crate) const CRATE: &str = "crate";

/// `#[tool(approval)]` / `#[tool(approval = "…")]`: ask for an approval before each call.
pub(crate) const APPROVAL: &str = "approval";

/// `#[tool(task)]`: long-running; an MCP server may run its calls as tasks.
pub(crate) const TASK: &str = "task";

/// `#[tool(ui = "ui://…")]`: the MCP Apps view that renders the tool's calls.
pub(crate) const UI: &str = "ui";
/// `#[tool(ui_visibility = "app")]`: who may call the tool, the model or a view.
pub(crate) const UI_VISIBILITY: &str = "ui_visibility";

/// The keys accepted inside `#[tool(…)]`, for error messages and suggestions.
pub(crate) const TOOL_KEYS: &[&str] =
    &[NAME, DESCRIPTION, APPROVAL, TASK, UI, UI_VISIBILITY, CRATE];

/// `#[args]` on the one parameter that stands for the whole argument object.
pub(crate) const ARGS: &str = "args";
/// `#[context]` on a parameter of an aliased context type, to inject it.
pub(crate) const CONTEXT: &str = "context";
/// The type name recognised as the injected context.
pub(crate) const CONTEXT_TYPE: &str = "Context";

/// The type name recognised as an injected shared state, `State<T>`.
pub(crate) const STATE_TYPE: &str = "State";
/// `#[tool]` on a method of a `#[toolset]` block.
pub(crate) const TOOL: &str = "tool";

/// Parameter attributes passed on to the argument struct's field.
pub(crate) const FORWARDED: &[&str] = &["doc", "serde", "schemars"];

/// `#[resource(uri = "…")]`: the resource's URI or URI template.
pub(crate) const URI: &str = "uri";
/// `#[resource(title = "…")]` / `#[prompt(title = "…")]`: a human-readable title.
pub(crate) const TITLE: &str = "title";
/// `#[resource(mime_type = "…")]`: the MIME type of its contents.
pub(crate) const MIME_TYPE: &str = "mime_type";

/// The keys accepted inside `#[resource(…)]`.
pub(crate) const RESOURCE_KEYS: &[&str] = &[URI, NAME, TITLE, DESCRIPTION, MIME_TYPE, CRATE];
/// The keys accepted inside `#[prompt(…)]`.
pub(crate) const PROMPT_KEYS: &[&str] = &[NAME, TITLE, DESCRIPTION, CRATE];

/// `#[complete(…)]` on a parameter of a `#[resource]` or `#[prompt]` function.
pub(crate) const COMPLETE: &str = "complete";
/// `#[complete(values = ["…", …])]`: complete from a fixed list.
pub(crate) const VALUES: &str = "values";
/// `#[complete(with = function)]`: complete with a function.
pub(crate) const WITH: &str = "with";
/// The keys accepted inside `#[complete(…)]`.
pub(crate) const COMPLETE_KEYS: &[&str] = &[VALUES, WITH];

/// Which attribute a function is under.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Kind {
    Tool,
    Resource,
    Prompt,
}

impl Kind {
    /// `#[tool]`, `#[resource]` or `#[prompt]`, for messages.
    pub(crate) fn attr(self) -> &'static str {
        match self {
            Kind::Tool => "#[tool]",
            Kind::Resource => "#[resource]",
            Kind::Prompt => "#[prompt]",
        }
    }

    /// What a parameter's name names.
    pub(crate) fn param_names(self) -> &'static str {
        match self {
            Kind::Tool => "its name becomes the property name in the schema",
            Kind::Resource => "its name is the URI template variable it takes",
            Kind::Prompt => "its name is the prompt argument's name",
        }
    }
}
