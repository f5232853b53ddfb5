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

/// The keys accepted inside `#[tool(…)]`, for error messages and suggestions.
pub(crate) const TOOL_KEYS: &[&str] = &[NAME, DESCRIPTION, APPROVAL, TASK, CRATE];

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
