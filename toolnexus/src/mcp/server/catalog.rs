//! The resources and prompts an [`McpServer`] serves, the sessions to tell when they
//! change, and the [`ServerHandle`] that changes them.
//!
//! Every session of a server (each stdio connection, each streamable-HTTP session) has a
//! [`Subscriber`] of its own: its client's peer, once it has initialized, and the URIs it
//! subscribed to with `resources/subscribe`. The server keeps weak references to them, so
//! a session that ends is forgotten on the next notification. Clients on MCP 2026-07-28
//! subscribe with `subscriptions/listen` instead; each open listen is a sink here until
//! it is cancelled.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, RwLock, Weak};
use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::ResourceUpdatedNotificationParam;
use rmcp::service::{Peer, SubscriptionSink};

use super::McpServer;
use crate::primitive::prompt::Prompt;
use crate::primitive::resource::Resource;

/// How long one `subscriptions/listen` (MCP 2026-07-28) lasts unless
/// [`McpServer::listen_ttl`] says otherwise: 5 minutes.
pub const DEFAULT_LISTEN_TTL: Duration = Duration::from_secs(300);

/// How many URIs one session may subscribe to, and one listen may ask about.
pub const MAX_SUBSCRIPTIONS: usize = 1024;

/// How many items a page of `resources/list`, `resources/templates/list` and
/// `prompts/list` holds unless [`McpServer::page_size`] says otherwise.
pub const DEFAULT_PAGE_SIZE: usize = 100;

/// What a server offers besides its tools.
#[derive(Clone, Default)]
pub(super) struct Catalog {
    pub(super) resources: Vec<Resource>,
    pub(super) prompts: Vec<Prompt>,
    /// Whether the `resources` / `prompts` capabilities are declared (even while empty:
    /// a handle may add some later).
    pub(super) serves_resources: bool,
    pub(super) serves_prompts: bool,
}

/// The catalog and the sessions that hear of its changes: shared by a server, its
/// clones, its sessions and its handles.
pub(super) struct Live {
    catalog: RwLock<Catalog>,
    sessions: Mutex<Vec<Weak<Subscriber>>>,
    listeners: Mutex<Vec<(u64, SubscriptionSink)>>,
    next_listener: AtomicU64,
    /// How long a listen lasts, in milliseconds.
    listen_ttl: AtomicU64,
}

impl Default for Live {
    fn default() -> Self {
        Live {
            catalog: RwLock::default(),
            sessions: Mutex::default(),
            listeners: Mutex::default(),
            next_listener: AtomicU64::default(),
            listen_ttl: AtomicU64::new(millis(DEFAULT_LISTEN_TTL)),
        }
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// One session's client and the resources it subscribed to.
#[derive(Default)]
pub(super) struct Subscriber {
    peer: OnceLock<Peer<RoleServer>>,
    subscriptions: Mutex<HashSet<String>>,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Every update under these locks is one insert or removal: a poisoned lock is still
    // consistent.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Live {
    pub(super) fn new(catalog: Catalog) -> Arc<Live> {
        Arc::new(Live {
            catalog: RwLock::new(catalog),
            ..Live::default()
        })
    }

    /// The catalog as it is now.
    pub(super) fn catalog(&self) -> std::sync::RwLockReadGuard<'_, Catalog> {
        self.catalog.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn change(&self, f: impl FnOnce(&mut Catalog) -> bool) -> bool {
        let mut catalog = self.catalog.write().unwrap_or_else(PoisonError::into_inner);
        f(&mut catalog)
    }

    /// Keeps `session` (weakly): it hears of changes from now on.
    fn register(&self, session: &Arc<Subscriber>) {
        let mut sessions = lock(&self.sessions);
        sessions.retain(|weak| weak.strong_count() > 0);
        sessions.push(Arc::downgrade(session));
    }

    /// The peers of the sessions alive and initialized, that `pick` selects.
    fn peers(&self, pick: impl Fn(&Subscriber) -> bool) -> Vec<Peer<RoleServer>> {
        let mut sessions = lock(&self.sessions);
        sessions.retain(|weak| weak.strong_count() > 0);
        sessions
            .iter()
            .filter_map(Weak::upgrade)
            .filter(|session| pick(session))
            .filter_map(|session| session.peer.get().cloned())
            .filter(|peer| !peer.is_transport_closed())
            .collect()
    }

    fn sinks(&self) -> Vec<SubscriptionSink> {
        lock(&self.listeners)
            .iter()
            .map(|(_, sink)| sink.clone())
            .collect()
    }

    /// Keeps `sink` (an open `subscriptions/listen`) until the returned id is dropped with
    /// [`Live::unlisten`].
    pub(super) fn listen(&self, sink: SubscriptionSink) -> u64 {
        let id = self.next_listener.fetch_add(1, Ordering::Relaxed);
        lock(&self.listeners).push((id, sink));
        id
    }

    pub(super) fn unlisten(&self, id: u64) {
        lock(&self.listeners).retain(|(held, _)| *held != id);
    }

    pub(super) fn listen_ttl(&self) -> Duration {
        Duration::from_millis(self.listen_ttl.load(Ordering::Relaxed))
    }

    async fn resource_updated(&self, uri: &str) -> usize {
        let peers = self.peers(|session| lock(&session.subscriptions).contains(uri));
        let mut told = 0;
        for peer in peers {
            let params = ResourceUpdatedNotificationParam::new(uri);
            told += usize::from(peer.notify_resource_updated(params).await.is_ok());
        }
        for sink in self.sinks() {
            // A sink refuses what its listen did not ask for.
            told += usize::from(sink.notify_resource_updated(uri).await.is_ok());
        }
        told
    }

    async fn list_changed(&self, prompts: bool) -> usize {
        let mut told = 0;
        for peer in self.peers(|_| true) {
            let sent = if prompts {
                peer.notify_prompt_list_changed().await
            } else {
                peer.notify_resource_list_changed().await
            };
            told += usize::from(sent.is_ok());
        }
        for sink in self.sinks() {
            let sent = if prompts {
                sink.notify_prompt_list_changed().await
            } else {
                sink.notify_resource_list_changed().await
            };
            told += usize::from(sent.is_ok());
        }
        told
    }
}

impl Subscriber {
    /// Adds `uri` to the session's subscriptions; false when it holds
    /// [`MAX_SUBSCRIPTIONS`] others already.
    pub(super) fn subscribe(&self, uri: String) -> bool {
        let mut subscriptions = lock(&self.subscriptions);
        if subscriptions.len() >= MAX_SUBSCRIPTIONS && !subscriptions.contains(&uri) {
            return false;
        }
        subscriptions.insert(uri);
        true
    }

    pub(super) fn unsubscribe(&self, uri: &str) {
        lock(&self.subscriptions).remove(uri);
    }
}

/// A handle on a server's resources and prompts: change them while the server runs, and
/// tell its clients (`McpServer::handle`).
///
/// - [`ServerHandle::resource_updated`] sends `notifications/resources/updated` to every
///   session that subscribed to the URI (`resources/subscribe`, or a
///   `subscriptions/listen` that named it);
/// - adding or removing a resource or a prompt sends `notifications/resources/list_changed`
///   / `notifications/prompts/list_changed` to every session.
///
/// A server and its clones share one catalog, which the handle reaches with all their
/// sessions. A tool that changes what a resource reads takes the handle as a state: make
/// it first with [`ServerHandle::new`], give it to the toolkit
/// ([`Toolkit::with_state`](crate::Toolkit::with_state)) and to the server
/// ([`McpServer::with_handle`]). Cheap to clone.
///
/// ```
/// use toolnexus::mcp::McpServer;
/// use toolnexus::Toolkit;
/// use toolnexus::primitive::Resource;
///
/// # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// # rt.block_on(async {
/// let server = McpServer::new(Toolkit::new()).resources([]);
/// let handle = server.handle();
/// let status = Resource::new_sync("status://build", |_, _| "green").unwrap();
/// handle.add_resource(status).await;          // tells every session the list changed
/// handle.resource_updated("status://build").await; // tells the sessions subscribed to it
/// assert_eq!(handle.resources().len(), 1);
/// # });
/// ```
#[derive(Clone)]
pub struct ServerHandle {
    live: Arc<Live>,
}

impl Default for ServerHandle {
    fn default() -> Self {
        ServerHandle::new()
    }
}

impl ServerHandle {
    /// A handle on an empty catalog, for a server to adopt with
    /// [`McpServer::with_handle`].
    pub fn new() -> Self {
        ServerHandle {
            live: Live::new(Catalog::default()),
        }
    }

    /// Tells every session subscribed to `uri` that it changed. Returns how many
    /// sessions were told.
    pub async fn resource_updated(&self, uri: &str) -> usize {
        self.live.resource_updated(uri).await
    }

    /// Adds `resource` (replacing one at the same URI) and tells every session the list
    /// changed. Returns how many sessions were told.
    pub async fn add_resource(&self, resource: Resource) -> usize {
        self.live.change(|catalog| {
            catalog.resources.retain(|r| r.uri() != resource.uri());
            catalog.resources.push(resource);
            catalog.serves_resources = true;
            true
        });
        self.live.list_changed(false).await
    }

    /// Removes the resource at `uri` (a URI or a template, as listed) and, when there was
    /// one, tells every session the list changed. Whether there was one.
    pub async fn remove_resource(&self, uri: &str) -> bool {
        let removed = self.live.change(|catalog| {
            let before = catalog.resources.len();
            catalog.resources.retain(|r| r.uri() != uri);
            catalog.resources.len() != before
        });
        if removed {
            self.live.list_changed(false).await;
        }
        removed
    }

    /// Adds `prompt` (replacing one of the same name) and tells every session the list
    /// changed. Returns how many sessions were told.
    pub async fn add_prompt(&self, prompt: Prompt) -> usize {
        self.live.change(|catalog| {
            catalog.prompts.retain(|p| p.name() != prompt.name());
            catalog.prompts.push(prompt);
            catalog.serves_prompts = true;
            true
        });
        self.live.list_changed(true).await
    }

    /// Removes the prompt named `name` and, when there was one, tells every session the
    /// list changed. Whether there was one.
    pub async fn remove_prompt(&self, name: &str) -> bool {
        let removed = self.live.change(|catalog| {
            let before = catalog.prompts.len();
            catalog.prompts.retain(|p| p.name() != name);
            catalog.prompts.len() != before
        });
        if removed {
            self.live.list_changed(true).await;
        }
        removed
    }

    /// Tells every session the resource list changed (when what a listing shows depends
    /// on something outside the server). Returns how many sessions were told.
    pub async fn resources_changed(&self) -> usize {
        self.live.list_changed(false).await
    }

    /// Tells every session the prompt list changed. Returns how many sessions were told.
    pub async fn prompts_changed(&self) -> usize {
        self.live.list_changed(true).await
    }

    /// The resources served now.
    pub fn resources(&self) -> Vec<Resource> {
        self.live.catalog().resources.clone()
    }

    /// The prompts served now.
    pub fn prompts(&self) -> Vec<Prompt> {
        self.live.catalog().prompts.clone()
    }
}

impl std::fmt::Debug for ServerHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let catalog = self.live.catalog();
        f.debug_struct("ServerHandle")
            .field("resources", &catalog.resources.len())
            .field("prompts", &catalog.prompts.len())
            .finish_non_exhaustive()
    }
}

impl McpServer {
    /// Serves `resources` beside the tools (added to any already given; one at the same
    /// URI is replaced), and declares the `resources` capability (subscriptions and list
    /// changes included) even when the list is empty, so a [`ServerHandle`] may add some
    /// later. [`Resource::registered`](crate::primitive::Resource::registered) gives every
    /// `#[resource]` function of the program. The catalog is shared with the server's
    /// clones and handles.
    #[must_use]
    pub fn resources(self, resources: impl IntoIterator<Item = Resource>) -> Self {
        let resources: Vec<Resource> = resources.into_iter().collect();
        self.0.live.change(|catalog| {
            for resource in resources {
                catalog.resources.retain(|r| r.uri() != resource.uri());
                catalog.resources.push(resource);
            }
            catalog.serves_resources = true;
            true
        });
        self
    }

    /// Serves `prompts` beside the tools (added to any already given; one of the same
    /// name is replaced), and declares the `prompts` capability even when the list is
    /// empty. [`Prompt::registered`](crate::primitive::Prompt::registered) gives every `#[prompt]`
    /// function of the program. The catalog is shared with the server's clones and
    /// handles.
    #[must_use]
    pub fn prompts(self, prompts: impl IntoIterator<Item = Prompt>) -> Self {
        let prompts: Vec<Prompt> = prompts.into_iter().collect();
        self.0.live.change(|catalog| {
            for prompt in prompts {
                catalog.prompts.retain(|p| p.name() != prompt.name());
                catalog.prompts.push(prompt);
            }
            catalog.serves_prompts = true;
            true
        });
        self
    }

    /// Serves the catalog of `handle` (made with [`ServerHandle::new`], perhaps given to
    /// the toolkit as a state), with what this server already served added to it, and
    /// declares the `resources` and `prompts` capabilities.
    #[must_use]
    pub fn with_handle(self, handle: &ServerHandle) -> Self {
        let mine = self.0.live.catalog().clone();
        handle.live.change(|catalog| {
            for resource in mine.resources {
                catalog.resources.retain(|r| r.uri() != resource.uri());
                catalog.resources.push(resource);
            }
            for prompt in mine.prompts {
                catalog.prompts.retain(|p| p.name() != prompt.name());
                catalog.prompts.push(prompt);
            }
            // The handle is there to add some: both capabilities are declared.
            catalog.serves_resources = true;
            catalog.serves_prompts = true;
            true
        });
        let live = Arc::clone(&handle.live);
        self.update(|inner| inner.live = live)
    }

    /// How many items one page of `resources/list`, `resources/templates/list` and
    /// `prompts/list` holds (default [`DEFAULT_PAGE_SIZE`]); the client follows
    /// `nextCursor` for the rest. `tools/list` is not paginated.
    #[must_use]
    pub fn page_size(self, size: usize) -> Self {
        self.update(|inner| inner.page_size = size.max(1))
    }

    /// How long one `subscriptions/listen` of an MCP 2026-07-28 client lasts (default
    /// [`DEFAULT_LISTEN_TTL`]): then the server ends it gracefully and the client listens
    /// again (as `McpClient` does). Over streamable HTTP such a request is not tied to a
    /// session, and a client that goes away does not always end it: the limit is what
    /// frees what it holds. Shared with the server's clones.
    #[must_use]
    pub fn listen_ttl(self, ttl: Duration) -> Self {
        (self.0.live.listen_ttl)
            .store(millis(ttl.max(Duration::from_millis(1))), Ordering::Relaxed);
        self
    }

    /// Remembers the session's client, to send it notifications: the first time, the
    /// session joins the server's list (so sessions that never ask about resources or
    /// prompts, a stateless server's tool calls among them, cost nothing there).
    pub(super) fn met(&self, peer: &Peer<RoleServer>) {
        if self.3.peer.set(peer.clone()).is_ok() {
            self.0.live.register(&self.3);
        }
    }

    /// A handle to change the resources and prompts while the server runs and to tell
    /// its clients (see [`ServerHandle`]).
    pub fn handle(&self) -> ServerHandle {
        ServerHandle {
            live: Arc::clone(&self.0.live),
        }
    }
}

impl Live {
    /// Declares what the catalog serves: `resources` (with subscriptions and list
    /// changes), `prompts` (with list changes), and `completions` for either.
    pub(super) fn declare(&self, capabilities: &mut rmcp::model::ServerCapabilities) {
        let catalog = self.catalog();
        if catalog.serves_resources {
            let mut resources = rmcp::model::ResourcesCapability::default();
            resources.subscribe = Some(true);
            resources.list_changed = Some(true);
            capabilities.resources = Some(resources);
        }
        if catalog.serves_prompts {
            let mut prompts = rmcp::model::PromptsCapability::default();
            prompts.list_changed = Some(true);
            capabilities.prompts = Some(prompts);
        }
        if catalog.serves_resources || catalog.serves_prompts {
            capabilities.completions = Some(rmcp::model::JsonObject::new());
        }
        // MCP Apps: a server with a view declares the extension, with the view type.
        if catalog
            .resources
            .iter()
            .any(|r| r.mime_type() == Some(crate::primitive::MCP_APP_MIME_TYPE))
        {
            declare_apps(capabilities);
        }
    }
}

/// Declares the MCP Apps extension (`io.modelcontextprotocol/ui`) in `capabilities`.
pub(super) fn declare_apps(capabilities: &mut rmcp::model::ServerCapabilities) {
    let mut settings = rmcp::model::JsonObject::new();
    settings.insert(
        "mimeTypes".to_owned(),
        serde_json::json!([crate::primitive::MCP_APP_MIME_TYPE]),
    );
    capabilities
        .extensions
        .get_or_insert_with(Default::default)
        .insert(crate::primitive::MCP_APPS_EXTENSION.to_owned(), settings);
}
