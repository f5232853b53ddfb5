//! The client side of the protocol: what the client advertises, and what it does with the
//! server's requests (`elicitation/create`) and notifications (`tools/list_changed`).
//!
//! MCP does not say which tool call an `elicitation/create` belongs to, so [`Routing`]
//! keeps the calls in flight on the connection, oldest first, and hands an elicitation to
//! the oldest one that is not already waiting on one (a call that waits is not running on
//! the server, so a new elicitation cannot be its own). With one call at a time, as in a
//! sequential loop, the match is exact. A remote tool's progress and log notifications
//! reach the calling tool's [`Context`] the same way: the oldest running call that has a
//! caller to report to gets them. The routing also holds each call's deadline, which one
//! watchdog task per client checks (see `deadline.rs`), so a call arms no timer of its own.

mod deadline;

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

#[allow(deprecated)]
use rmcp::model::LoggingMessageNotificationParam;
use rmcp::model::ProgressNotificationParam;
use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationCapability, ExtensionCapabilities, FormElicitationCapability, Implementation,
    JsonObject, ProtocolVersion, TASKS_EXTENSION_ID, UrlElicitationCapability,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ClientHandler, ErrorData, RoleClient};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::Instant;

use crate::tool::context::Context;

/// An `elicitation/create` on its way to the call it belongs to.
pub(super) struct Elicitation {
    pub(super) params: ElicitRequestParams,
    pub(super) reply: oneshot::Sender<ElicitResult>,
}

/// What reaches a call in flight besides its result.
pub(super) enum Inbound {
    /// The server's elicitation, for this call. Boxed: a channel allocates room for a
    /// block of messages, and every call has one, while elicitations are rare.
    Elicitation(Box<Elicitation>),
    /// The watchdog saw the call's deadline pass.
    Deadline,
}

/// Where a call's elicitations and its deadline arrive.
pub(super) type Inbox = mpsc::UnboundedReceiver<Inbound>;

struct Slot {
    id: u64,
    inbox: mpsc::UnboundedSender<Inbound>,
    waiting: bool,
    /// When the call times out; `None` while it waits on an elicitation's answer, and
    /// once the watchdog has told it.
    deadline: Option<Instant>,
    /// The calling tool's context, when it has a caller to hear the remote tool's
    /// progress and log lines.
    reporter: Option<Context>,
}

/// A channel kept for the next call: made anew for every call it would be a few
/// allocations, the block of messages included, for elicitations that rarely come.
type Spare = (mpsc::UnboundedSender<Inbound>, Inbox);

/// How many channels a client keeps for its next calls (one per call in flight, up to this).
const SPARES: usize = 8;

#[derive(Default)]
struct Slots {
    /// The last call id given.
    last: u64,
    /// The calls in flight, oldest first.
    calls: Vec<Slot>,
    spares: Vec<Spare>,
    /// A watchdog task is checking the deadlines.
    watched: bool,
}

/// The calls in flight on one client, and the tool-list generation.
pub(super) struct Routing {
    slots: Mutex<Slots>,
    changed: watch::Sender<u64>,
    /// The generations of the resource and prompt lists, and the URIs updated.
    pub(super) notes: super::catalog::Notes,
    elicitation_timeout: Duration,
    /// How often the watchdog checks the deadlines.
    tick: Duration,
}

impl Routing {
    pub(super) fn new(elicitation_timeout: Duration, call_timeout: Duration) -> Arc<Routing> {
        Arc::new(Routing {
            slots: Mutex::default(),
            changed: watch::channel(0).0,
            notes: super::catalog::Notes::default(),
            elicitation_timeout,
            tick: deadline::tick(call_timeout),
        })
    }

    fn slots(&self) -> MutexGuard<'_, Slots> {
        // A panic while holding this lock leaves the list consistent (every update is a
        // single push, remove or flag write), so a poisoned lock is still usable.
        self.slots
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Registers a call about to start, due by `deadline`; its elicitations, and word
    /// that the deadline passed, arrive on the guard's inbox.
    pub(super) fn enter(self: &Arc<Self>, deadline: Instant) -> SlotGuard {
        let mut slots = self.slots();
        let (tx, rx) = slots.spares.pop().unwrap_or_else(mpsc::unbounded_channel);
        slots.last += 1;
        let id = slots.last;
        slots.calls.push(Slot {
            id,
            inbox: tx,
            waiting: false,
            deadline: Some(deadline),
            reporter: None,
        });
        self.watch(&mut slots);
        SlotGuard {
            routing: Arc::clone(self),
            id,
            inbox: Some(rx),
        }
    }

    /// Starts the watchdog unless it runs (outside a tokio runtime there is none, and
    /// nothing to time).
    fn watch(self: &Arc<Self>, slots: &mut Slots) {
        if !slots.watched
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            slots.watched = true;
            runtime.spawn(deadline::watch(Arc::downgrade(self), self.tick));
        }
    }

    /// Tells every call whose deadline has passed by `now`, once. False, with the
    /// watchdog marked gone, when no call has a deadline (none in flight, or all waiting
    /// on an answer) and none started since the watchdog's last look (`seen`, the last
    /// call id then): it can stop.
    pub(super) fn expire(&self, now: Instant, seen: &mut u64) -> bool {
        let mut slots = self.slots();
        let mut timed = false;
        for slot in &mut slots.calls {
            if slot.deadline.is_some_and(|deadline| deadline <= now) {
                slot.deadline = None;
                let _ = slot.inbox.send(Inbound::Deadline);
            }
            timed |= slot.deadline.is_some();
        }
        if !timed && slots.last == *seen {
            slots.watched = false;
            return false;
        }
        *seen = slots.last;
        true
    }

    #[cfg(test)]
    pub(super) fn watched(&self) -> bool {
        self.slots().watched
    }

    /// The watchdog task ended without saying so (its runtime shut down): the next call
    /// starts another.
    pub(super) fn unwatched(&self) {
        self.slots().watched = false;
    }

    fn set_waiting(self: &Arc<Self>, id: u64, deadline: Option<Instant>) {
        let mut slots = self.slots();
        if let Some(slot) = slots.calls.iter_mut().find(|s| s.id == id) {
            slot.waiting = deadline.is_none();
            slot.deadline = deadline;
            if deadline.is_some() {
                self.watch(&mut slots);
            }
        }
    }

    fn set_reporter(&self, id: u64, ctx: &Context) {
        if let Some(slot) = self.slots().calls.iter_mut().find(|s| s.id == id) {
            slot.reporter = Some(ctx.clone());
        }
    }

    /// The context of the oldest running call that reports, for a notification.
    fn reporter(&self) -> Option<Context> {
        let slots = self.slots();
        slots
            .calls
            .iter()
            .filter(|s| !s.waiting)
            .find_map(|s| s.reporter.clone())
    }

    /// Hands an elicitation to the oldest call not waiting on one; false when no call
    /// can take it.
    fn deliver(&self, elicitation: Box<Elicitation>) -> bool {
        let slots = self.slots();
        let mut elicitation = Inbound::Elicitation(elicitation);
        for slot in slots.calls.iter().filter(|s| !s.waiting) {
            match slot.inbox.send(elicitation) {
                Ok(()) => return true,
                Err(mpsc::error::SendError(back)) => elicitation = back,
            }
        }
        false
    }

    /// The tool-list generation, bumped by every `notifications/tools/list_changed`.
    pub(super) fn subscribe(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    pub(super) fn generation(&self) -> u64 {
        *self.changed.borrow()
    }

    pub(super) fn bump(&self) {
        self.changed.send_modify(|generation| *generation += 1);
    }
}

/// A call's registration; dropping it (the call finished, timed out or was abandoned)
/// removes the call from the routing.
pub(super) struct SlotGuard {
    routing: Arc<Routing>,
    id: u64,
    /// Where the call's elicitations arrive (`None` only while the guard is dropped).
    inbox: Option<Inbox>,
}

impl SlotGuard {
    /// The call's next elicitation, or word that its deadline passed.
    pub(super) async fn next(&mut self) -> Option<Inbound> {
        match &mut self.inbox {
            Some(inbox) => inbox.recv().await,
            None => None,
        }
    }

    /// Marks the call as waiting on an elicitation's answer: it has no deadline then.
    pub(super) fn waiting(&self) {
        self.routing.set_waiting(self.id, None);
    }

    /// Marks the call as running again, due by `deadline`.
    pub(super) fn resume(&self, deadline: Instant) {
        self.routing.set_waiting(self.id, Some(deadline));
    }

    /// Sends the remote tool's progress and log lines to `ctx` (when it has a caller).
    pub(super) fn report_to(&self, ctx: &Context) {
        if ctx.caller().is_some() {
            self.routing.set_reporter(self.id, ctx);
        }
    }
}

impl Drop for SlotGuard {
    /// Removes the call, and keeps its channel for the next one: emptied, so that an
    /// elicitation nobody took is dropped (and cancelled) as before, never handed on.
    fn drop(&mut self) {
        let mut slots = self.routing.slots();
        let Some(at) = slots.calls.iter().position(|slot| slot.id == self.id) else {
            return;
        };
        let slot = slots.calls.remove(at);
        if let Some(mut inbox) = self.inbox.take()
            && slots.spares.len() < SPARES
        {
            while inbox.try_recv().is_ok() {}
            slots.spares.push((slot.inbox, inbox));
        }
    }
}

/// The [`ClientHandler`] of one connection: it responds to what the server asks the client
/// (elicitation) and takes its notifications.
#[derive(Clone)]
pub(super) struct Responder {
    pub(super) routing: Arc<Routing>,
}

impl ClientHandler for Responder {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation = Some(
            ElicitationCapability::default()
                .with_form(FormElicitationCapability::default())
                .with_url(UrlElicitationCapability::default()),
        );
        // Calls follow tasks (SEP-2663) to their end, so a server may make one of any call.
        // MCP Apps: the client keeps each tool's view (`Tool::ui`) and reads `ui://`
        // resources, for a host that renders them (the chat page does).
        let mut apps = JsonObject::new();
        apps.insert(
            "mimeTypes".to_owned(),
            serde_json::json!([crate::primitive::MCP_APP_MIME_TYPE]),
        );
        capabilities.extensions = Some(ExtensionCapabilities::from_iter([
            (TASKS_EXTENSION_ID.to_owned(), JsonObject::new()),
            (crate::primitive::MCP_APPS_EXTENSION.to_owned(), apps),
        ]));
        let mut config = ClientConfig::new(
            capabilities,
            Implementation::new("toolnexus", env!("CARGO_PKG_VERSION")),
        );
        // The handshake is `initialize`, so the newest revision that has one is offered:
        // 2026-07-28 has no `initialize`, and offering it there is a version mismatch.
        config.protocol_version = ProtocolVersion::LATEST_WITH_INITIALIZE;
        config
    }

    async fn create_elicitation(
        &self,
        params: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let (reply, answer) = oneshot::channel();
        if !self
            .routing
            .deliver(Box::new(Elicitation { params, reply }))
        {
            // No tool call is running: nobody to ask.
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        }
        match tokio::time::timeout(self.routing.elicitation_timeout, answer).await {
            Ok(Ok(result)) => Ok(result),
            // The call was abandoned, or nobody answered in time.
            _ => Ok(ElicitResult::new(ElicitationAction::Cancel)),
        }
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.routing.bump();
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.routing
            .notes
            .resources
            .send_modify(|generation| *generation += 1);
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.routing
            .notes
            .prompts
            .send_modify(|generation| *generation += 1);
    }

    async fn on_resource_updated(
        &self,
        params: rmcp::model::ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.routing.notes.updated(params.uri);
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        if let Some(ctx) = self.routing.reporter() {
            ctx.progress(params.progress, params.total, params.message.as_deref());
        }
    }

    // Logging is deprecated by SEP-2577 (2026-07-28); servers on earlier versions send it.
    #[allow(deprecated)]
    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        if let Some(ctx) = self.routing.reporter() {
            let level = crate::mcp::server::notify::log_level(params.level);
            match &params.data {
                serde_json::Value::String(text) => ctx.log(level, text),
                other => ctx.log(level, other.to_string()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::ElicitationSchema;

    use super::*;

    fn elicitation() -> (Elicitation, oneshot::Receiver<ElicitResult>) {
        let (reply, rx) = oneshot::channel();
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: "?".to_owned(),
            requested_schema: ElicitationSchema::builder().build().unwrap(),
        };
        (Elicitation { params, reply }, rx)
    }

    /// What the call's inbox holds now, without waiting.
    fn received(guard: &mut SlotGuard) -> bool {
        guard
            .inbox
            .as_mut()
            .is_some_and(|inbox| inbox.try_recv().is_ok())
    }

    fn far() -> Instant {
        Instant::now() + Duration::from_secs(3600)
    }

    #[test]
    fn an_elicitation_goes_to_the_oldest_call_not_already_waiting() {
        let routing = Routing::new(Duration::from_secs(1), Duration::from_secs(1));
        let mut first = routing.enter(far());
        let mut second = routing.enter(far());
        assert!(routing.deliver(Box::new(elicitation().0)));
        assert!(received(&mut first));
        first.waiting();
        assert!(routing.deliver(Box::new(elicitation().0)));
        assert!(!received(&mut first));
        assert!(received(&mut second));
        drop(first);
        drop(second);
        // No call in flight: nobody takes it (the handler then declines).
        assert!(!routing.deliver(Box::new(elicitation().0)));
    }

    /// A call's channel serves the next call, but what the finished call left in it is
    /// dropped (its elicitation cancelled), never handed to the next.
    #[test]
    fn a_reused_channel_starts_empty() {
        let routing = Routing::new(Duration::from_secs(1), Duration::from_secs(1));
        let first = routing.enter(far());
        let (left, mut reply) = elicitation();
        assert!(routing.deliver(Box::new(left)));
        drop(first);
        assert!(
            reply.try_recv().is_err(),
            "the elicitation left behind is dropped"
        );
        assert_eq!(routing.slots().spares.len(), 1, "the channel is kept");
        let mut next = routing.enter(far());
        assert!(
            routing.slots().spares.is_empty(),
            "and taken by the next call"
        );
        assert!(!received(&mut next));
        assert!(routing.deliver(Box::new(elicitation().0)));
        assert!(received(&mut next));
    }

    #[test]
    fn list_changed_bumps_the_generation() {
        let routing = Routing::new(Duration::from_secs(1), Duration::from_secs(1));
        let watch = routing.subscribe();
        routing.bump();
        assert_eq!(routing.generation(), 1);
        assert!(watch.has_changed().unwrap());
    }
}
