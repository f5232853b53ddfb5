//! Shared state for tools: the [`State<T>`] a tool takes as a parameter, the typed map a
//! [`Toolkit`](crate::Toolkit) (or a [`Context`](crate::Context)) holds it in, and the
//! error a tool gives when the state it needs was never provided.

use std::any::{Any, TypeId};
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// A value shared by every call of the tools that take it: a database handle, an HTTP
/// client, an API key.
///
/// A `#[tool]` function takes `State<T>` as a parameter; it is injected from the value
/// given to [`Toolkit::with_state`](crate::Toolkit::with_state) (or
/// [`Context::with_state`](crate::Context::with_state)) and is never part of the schema.
/// It dereferences to `T`; cloning it clones an `Arc`, so every clone is the same value.
/// Mutable state needs interior mutability (`Mutex`, `RwLock`, atomics).
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use toolnexus::{tool, Context, State, Toolkit};
///
/// /// Count the calls.
/// #[tool]
/// fn hits(counter: State<AtomicU64>) -> Result<u64, std::convert::Infallible> {
///     Ok(counter.fetch_add(1, Ordering::Relaxed) + 1)
/// }
///
/// let toolkit = Toolkit::new().with_state(AtomicU64::new(0)).with(hits::tool());
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// let first = rt.block_on(toolkit.execute("hits", serde_json::json!({}), Context::default()));
/// let second = rt.block_on(toolkit.execute("hits", serde_json::json!({}), Context::default()));
/// assert_eq!((first.output.as_str(), second.output.as_str()), ("1", "2"));
/// ```
pub struct State<T: ?Sized>(Arc<T>);

impl<T> State<T> {
    /// Wraps a value (to call a `#[tool]` function directly, as the toolkit would).
    pub fn new(value: T) -> Self {
        State(Arc::new(value))
    }
}

impl<T: ?Sized> State<T> {
    /// Wraps a value that is already shared.
    pub fn from_arc(value: Arc<T>) -> Self {
        State(value)
    }

    /// The shared value, as an `Arc`.
    pub fn arc(&self) -> &Arc<T> {
        &self.0
    }

    /// The shared value, as an `Arc`, consuming the `State`.
    pub fn into_arc(self) -> Arc<T> {
        self.0
    }
}

impl<T: ?Sized> Deref for State<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: ?Sized> Clone for State<T> {
    fn clone(&self) -> Self {
        State(Arc::clone(&self.0))
    }
}

impl<T: ?Sized> AsRef<T> for State<T> {
    fn as_ref(&self) -> &T {
        &self.0
    }
}

impl<T: ?Sized> From<Arc<T>> for State<T> {
    fn from(value: Arc<T>) -> Self {
        State(value)
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for State<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("State").field(&&*self.0).finish()
    }
}

/// The type of a state a tool needs, as listed by
/// [`Tool::required_states`](crate::Tool::required_states).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct StateType {
    id: TypeId,
    name: &'static str,
}

impl StateType {
    /// The state type `T`.
    pub fn of<T: Send + Sync + 'static>() -> Self {
        StateType {
            id: TypeId::of::<T>(),
            name: std::any::type_name::<T>(),
        }
    }

    /// The type's name, as [`std::any::type_name`] gives it.
    pub fn name(&self) -> &'static str {
        self.name
    }

    pub(crate) fn id(&self) -> TypeId {
        self.id
    }
}

impl fmt::Debug for StateType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

/// One value per type. Few entries (a handful of states), so a vector searched by type id
/// beats a hash map; cloned only when a state is added.
#[derive(Clone, Default)]
pub(crate) struct States(Vec<Slot>);

#[derive(Clone)]
struct Slot {
    ty: StateType,
    value: Arc<dyn Any + Send + Sync>,
}

impl States {
    /// Adds `value`, replacing any earlier value of the same type.
    pub(crate) fn insert<T: Send + Sync + 'static>(&mut self, value: Arc<T>) {
        let ty = StateType::of::<T>();
        let slot = Slot { ty, value };
        match self.0.iter_mut().find(|s| s.ty.id == ty.id) {
            Some(existing) => *existing = slot,
            None => self.0.push(slot),
        }
    }

    pub(crate) fn get<T: Send + Sync + 'static>(&self) -> Option<State<T>> {
        self.contains(TypeId::of::<T>())
            .and_then(|value| Arc::clone(value).downcast::<T>().ok())
            .map(State)
    }

    fn contains(&self, id: TypeId) -> Option<&Arc<dyn Any + Send + Sync>> {
        self.0.iter().find(|s| s.ty.id == id).map(|s| &s.value)
    }

    pub(crate) fn has(&self, ty: StateType) -> bool {
        self.contains(ty.id()).is_some()
    }

    /// `self`'s states, with `over`'s replacing those of the same type.
    pub(crate) fn overlaid(&self, over: &States) -> States {
        let mut merged = self.clone();
        for slot in &over.0 {
            match merged.0.iter_mut().find(|s| s.ty.id == slot.ty.id) {
                Some(existing) => *existing = slot.clone(),
                None => merged.0.push(slot.clone()),
            }
        }
        merged
    }

    pub(crate) fn types(&self) -> impl Iterator<Item = StateType> + '_ {
        self.0.iter().map(|s| s.ty)
    }
}

impl fmt::Debug for States {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.types()).finish()
    }
}

/// A tool needs a state that was never provided. Its text names the tool, the type and
/// the fix; as a [`ToolResult`](crate::ToolResult) it is an error result.
///
/// [`Toolkit::check_states`](crate::Toolkit::check_states) reports these before any
/// call; a call of such a tool gives the same text as its error result.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the tool `{tool}` needs a state of type `{name}`, and none was provided: add one with `Toolkit::with_state(value)` where `value: {name}` (or `Context::with_state` when calling the tool without a toolkit)",
    name = .ty.name
)]
pub struct MissingState {
    tool: String,
    ty: StateType,
}

impl MissingState {
    /// The tool `tool` needs a state of type `ty`.
    pub fn new(tool: impl Into<String>, ty: StateType) -> Self {
        MissingState {
            tool: tool.into(),
            ty,
        }
    }

    /// The tool that needs the state.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The type of the missing state.
    pub fn state_type(&self) -> StateType {
        self.ty
    }
}

impl From<MissingState> for crate::ToolResult {
    fn from(missing: MissingState) -> Self {
        crate::ToolResult::error(missing.to_string())
    }
}
