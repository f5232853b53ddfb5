//! [`Toolset`]: a value whose `#[tool]` methods become tools bound to it.

use std::sync::Arc;

use crate::tool::Tool;

/// A type whose methods are tools: what `#[toolset]` on an `impl` block implements.
///
/// [`Toolset::tools`] binds every `#[tool]` method of the block to one shared value;
/// [`Toolkit::with_toolset`](crate::Toolkit::with_toolset) registers them all.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use toolnexus::{tool, toolset, Context, Toolkit, Toolset};
///
/// struct Notes {
///     lines: Mutex<Vec<String>>,
/// }
///
/// #[toolset]
/// impl Notes {
///     /// Write a note down.
///     #[tool]
///     fn note(&self, /** The note. */ text: String) -> Result<usize, std::convert::Infallible> {
///         let mut lines = self.lines.lock().unwrap_or_else(|e| e.into_inner());
///         lines.push(text);
///         Ok(lines.len())
///     }
/// }
///
/// let notes = Arc::new(Notes { lines: Mutex::new(Vec::new()) });
/// let tools = <Notes as Toolset>::tools(Arc::clone(&notes));
/// assert_eq!(tools[0].name(), "note");
///
/// let toolkit = Toolkit::new().with_toolset(Arc::clone(&notes));
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// let result = rt.block_on(toolkit.execute("note", serde_json::json!({"text": "hi"}), Context::default()));
/// assert_eq!(result.output, "1");
/// assert_eq!(notes.note("again".into()).unwrap(), 2); // still an ordinary method
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a toolset",
    label = "no `#[toolset]` impl block for this type",
    note = "put `#[toolset]` on an `impl {Self}` block and `#[tool]` on the methods that are tools",
    note = "a generic toolset is one only when the type is `Send + Sync + 'static`"
)]
pub trait Toolset: Send + Sync + 'static {
    /// Every `#[tool]` method (and associated function) of the `#[toolset]` block, the
    /// methods bound to `this`.
    fn tools(this: Arc<Self>) -> Vec<Tool>;
}

/// What [`Toolkit::with_toolset`](crate::Toolkit::with_toolset) accepts: a toolset value,
/// or one already in an `Arc` (to keep a handle on it).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be registered as a toolset",
    label = "expected a `#[toolset]` value, or an `Arc` of one",
    note = "pass the value itself or an `Arc` of it (not a reference): the toolkit shares it between calls",
    note = "the type needs `#[toolset]` on an impl block with `#[tool]` methods"
)]
pub trait IntoToolset {
    /// The toolset type.
    type Set: Toolset;

    /// The value, shared.
    fn into_shared(self) -> Arc<Self::Set>;
}

impl<T: Toolset> IntoToolset for T {
    type Set = T;

    fn into_shared(self) -> Arc<T> {
        Arc::new(self)
    }
}

impl<T: Toolset> IntoToolset for Arc<T> {
    type Set = T;

    fn into_shared(self) -> Arc<T> {
        self
    }
}
