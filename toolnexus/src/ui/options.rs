//! [`UiOptions`]: who may call a UI endpoint, who the caller is, and what it keeps.

use std::sync::Arc;

use axum::http::request::Parts;

use crate::web::WebGuard;

/// The default cap on the threads an endpoint keeps ([`UiOptions::max_threads`]).
pub const DEFAULT_MAX_THREADS: usize = 1_000;

/// The default cap on one thread's transcript, as JSON
/// ([`UiOptions::max_transcript_bytes`]): 1 MiB.
pub const DEFAULT_MAX_TRANSCRIPT_BYTES: usize = 1024 * 1024;

/// Says who sent a request (the signed-in user), from its head: see
/// [`UiOptions::user`].
pub type User = Arc<dyn Fn(&Parts) -> Option<String> + Send + Sync>;

/// How a UI endpoint ([`ag_ui_with`](crate::ui::ag_ui_with),
/// [`ai_sdk_with`](crate::ui::ai_sdk_with)) serves: the [`WebGuard`] in front of it,
/// the user each request comes from, and the bounds on what it keeps in memory.
///
/// [`UiOptions::new`] is what [`ag_ui`](crate::ui::ag_ui) and [`ai_sdk`](crate::ui::ai_sdk)
/// use: [`WebGuard::new`] (loopback `Host`s and `Origin`s only, JSON bodies only, 1 MiB,
/// 30 s), no users (whoever knows a thread id continues that thread), at most
/// [`DEFAULT_MAX_THREADS`] threads of at most [`DEFAULT_MAX_TRANSCRIPT_BYTES`] each.
///
/// ```
/// use toolnexus::ui::UiOptions;
/// use toolnexus::web::WebGuard;
///
/// // Behind a proxy at chat.example.com that signs users in and says who in a header.
/// let options = UiOptions::new()
///     .guard(
///         WebGuard::new()
///             .allowed_hosts(["chat.example.com"])
///             .allowed_origins(["https://chat.example.com"]),
///     )
///     .user(|request| {
///         let user = request.headers.get("x-authenticated-user")?;
///         user.to_str().ok().map(str::to_owned)
///     })
///     .max_threads(10_000);
/// ```
#[derive(Clone)]
pub struct UiOptions {
    pub(crate) guard: WebGuard,
    pub(crate) user: Option<User>,
    pub(crate) max_threads: usize,
    pub(crate) max_transcript_bytes: usize,
}

impl std::fmt::Debug for UiOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UiOptions")
            .field("guard", &self.guard)
            .field("user", &self.user.is_some())
            .field("max_threads", &self.max_threads)
            .field("max_transcript_bytes", &self.max_transcript_bytes)
            .finish()
    }
}

impl Default for UiOptions {
    fn default() -> Self {
        UiOptions::new()
    }
}

impl UiOptions {
    /// The defaults (see [`UiOptions`]).
    pub fn new() -> Self {
        UiOptions {
            guard: WebGuard::new(),
            user: None,
            max_threads: DEFAULT_MAX_THREADS,
            max_transcript_bytes: DEFAULT_MAX_TRANSCRIPT_BYTES,
        }
    }

    /// The checks in front of the endpoint: the `Host`s and `Origin`s it accepts (a
    /// proxy's host name, the origin the app's pages are served from), the bound on a
    /// body and the time it has to arrive.
    #[must_use]
    pub fn guard(mut self, guard: WebGuard) -> Self {
        self.guard = guard;
        self
    }

    /// Says who sent each request, from its head (a header the app's authentication
    /// layer checked, an extension it inserted): each user then has threads of their
    /// own. A thread id names a thread of the user who sent it, so another user who sends
    /// the same id reaches a thread of their own, and an interrupt or approval id is
    /// answered only by the user it was issued to (others are told it is unknown).
    /// `None` (or an empty name) is the anonymous user, whose threads every anonymous
    /// caller shares: refuse such requests in the authentication layer.
    ///
    /// On a client with a run store, the thread's session is named after the user too
    /// (a digest of the name, then the thread id).
    #[must_use]
    pub fn user<F>(mut self, user: F) -> Self
    where
        F: Fn(&Parts) -> Option<String> + Send + Sync + 'static,
    {
        self.user = Some(Arc::new(user));
        self
    }

    /// Caps the threads the endpoint keeps in memory (at least 1): past it, the thread
    /// used least recently is forgotten, its conversation and its open interrupt with it
    /// (answering that interrupt then gets `unknown_interrupt`). Default
    /// [`DEFAULT_MAX_THREADS`]. The conversations are kept in a
    /// [bounded](crate::agent::InMemoryConversations::bounded) conversation store of the
    /// endpoint's own. A client with a run store keeps its threads there instead, as
    /// sessions; the endpoint then holds only its own open interrupts.
    #[must_use]
    pub fn max_threads(mut self, threads: usize) -> Self {
        self.max_threads = threads.max(1);
        self
    }

    /// Caps a thread's conversation, measured as JSON: a run that leaves it longer ends
    /// with an error (`thread_too_long`) instead of its interrupt, and the thread takes
    /// no more runs (start a new one). Default
    /// [`DEFAULT_MAX_TRANSCRIPT_BYTES`].
    #[must_use]
    pub fn max_transcript_bytes(mut self, bytes: usize) -> Self {
        self.max_transcript_bytes = bytes;
        self
    }
}
