//! The event store that makes a session's response streams resumable: every event the
//! server sends on a stream is kept (bounded, for a while), so a client whose connection
//! dropped can `GET` with `Last-Event-ID` and receive what it missed, the call's result
//! included, even when the result was produced after the drop.
//!
//! A replay is served only to whoever owned the stream. Each stream is named by a random
//! 128-bit key, which only its own events carry (`KEY-INDEX`, the key in hex), so an id
//! cannot be guessed from another. A stream answered within a session belongs to that
//! session ([`Sessions`](super::sessions::Sessions) claims it before its first event leaves),
//! and is replayed only to it; a stream without a session (MCP 2026-07-28) is replayed to
//! whoever presents one of its ids, which only its own client was sent. A foreign id and an
//! unknown one get the same refusal.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use rmcp::model::ServerJsonRpcMessage;
use rmcp::transport::streamable_http_server::session::{
    EventId, EventStore, EventStoreError, EventStream, ServerSseMessage,
};
use tokio::sync::watch;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// Events kept per stream; a stream that sends more keeps its latest ones.
const EVENTS_PER_STREAM: usize = 256;
/// How long a stream that carried its response stays resumable: a client whose connection
/// dropped comes back within its retry interval (3 s by default, then backing off).
const DONE_TTL: Duration = Duration::from_secs(30);
/// What a stream and an event cost beyond their messages' JSON text (the maps, the
/// stream's name, its change signal, the event's own fields), counted in the budget.
const STREAM_OVERHEAD: usize = 512;
const EVENT_OVERHEAD: usize = 256;
/// How often expired streams are swept.
const SWEEP_EVERY: Duration = Duration::from_secs(1);

/// In-memory and bounded: a stream is kept [`DONE_TTL`] after its response, or `idle`
/// after its last event while it has none (a session's calls end with the session after
/// that long anyway). Answered streams, which a client needs only if the answer was lost
/// on the way, share a smaller budget (`answered_max`: under load, the latest answers);
/// past `max_bytes` in all, the least recently written streams are dropped, answered ones
/// first, so a call still running stays resumable the longest.
///
/// Keeping every answer up to the whole budget made the heap churn under load (a measured
/// fifth more CPU per request than with a small budget, for the same instructions).
#[derive(Clone)]
pub(super) struct MemoryEventStore(Arc<Shared>);

struct Shared {
    state: Mutex<Logs>,
    idle: Duration,
    max_bytes: usize,
    answered_max: usize,
}

/// The maps' hasher: their keys are made by this server and the SDK (stream names, random
/// keys), not chosen by clients (who only look keys up), so a fast one will do (foldhash,
/// seeded per process; already under serde_json).
type Hasher = foldhash::fast::RandomState;

/// A stream's key: 128 random bits.
type Key = u128;

/// The refusal of a replay, the same for an id that names no stream, a stream that has
/// expired and a stream of another client.
const UNKNOWN: &str = "the stream of this event id is unknown, has expired, or is not yours";

/// The event logs of the streams, and their names, behind the store's one lock.
struct Logs {
    streams: HashMap<Key, Log, Hasher>,
    names: HashMap<Arc<str>, Key, Hasher>,
    /// The streams still without their response, by when they were last written, oldest
    /// first: (write number, key). Eviction takes from the front, so a store at its
    /// budget pays O(log n) per event, not a sort of every stream.
    open: BTreeMap<u64, Key>,
    /// The same for the streams that carried their response.
    answered: BTreeMap<u64, Key>,
    /// Counts writes, to order `open` and `answered`.
    writes: u64,
    /// What every stream costs, and what the answered ones cost.
    bytes: usize,
    answered_bytes: usize,
    swept: Instant,
}

struct Log {
    name: Arc<str>,
    /// (index, event, its size), oldest first.
    events: VecDeque<(u64, Kept, usize)>,
    next_index: u64,
    /// Set once the stream carried its response (or error): nothing follows.
    done: bool,
    touched: Instant,
    /// This stream's key in `open` or `answered` (`None` before its first event).
    write: Option<u64>,
    /// What this stream costs in the budget: its events and [`STREAM_OVERHEAD`].
    bytes: usize,
    /// Tells replays that an event was stored; made by the first replay (most streams
    /// never have one).
    changed: Option<watch::Sender<()>>,
    /// The session the stream was answered in (`None`: none, or not yet claimed).
    owner: Option<Arc<str>>,
    /// Ends the replay in progress when a newer one of the same stream starts: a stream
    /// is followed by one connection at a time.
    replaying: Option<CancellationToken>,
}

/// An event as kept: its message as JSON text (one allocation, where the message itself
/// is a tree of them), read back only when a client resumes.
struct Kept {
    json: Option<Box<[u8]>>,
    retry: Option<Duration>,
}

impl Kept {
    /// The event again, with its id; `None` if its text no longer reads as a message
    /// (which would be a bug: it was written from one).
    fn event(&self, key: Key, index: u64) -> Option<ServerSseMessage> {
        let message = match &self.json {
            Some(json) => match serde_json::from_slice::<ServerJsonRpcMessage>(json) {
                Ok(message) => Some(Arc::new(message)),
                Err(error) => {
                    tracing::warn!(%error, "MCP HTTP: a kept event does not read back");
                    return None;
                }
            },
            None => None,
        };
        // The SDK's type is non-exhaustive: built from one of its constructors.
        let mut event = ServerSseMessage::priming(event_id(key, index), Duration::ZERO);
        event.message = message;
        event.retry = self.retry;
        Some(event)
    }
}

impl MemoryEventStore {
    pub(super) fn new(idle: Duration, max_bytes: usize, answered_max: usize) -> Self {
        MemoryEventStore(Arc::new(Shared {
            state: Mutex::new(Logs {
                streams: HashMap::default(),
                names: HashMap::default(),
                open: BTreeMap::new(),
                answered: BTreeMap::new(),
                writes: 0,
                bytes: 0,
                answered_bytes: 0,
                swept: Instant::now(),
            }),
            idle,
            max_bytes,
            answered_max: answered_max.min(max_bytes),
        }))
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Logs> {
        self.state
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    /// Drops the streams past their time (looked for at most once a [`SWEEP_EVERY`],
    /// oldest first, up to the first one still in time), then the least recently written
    /// answered ones while they are over their budget, then the least recently written of
    /// all, answered first, while over the whole budget.
    fn evict(&self, state: &mut Logs, now: Instant) {
        if now.duration_since(state.swept) >= SWEEP_EVERY {
            state.swept = now;
            let expired = |ages: &BTreeMap<u64, Key>, ttl: Duration| -> Vec<Key> {
                ages.values()
                    .take_while(|key| now.duration_since(state.streams[key].touched) >= ttl)
                    .copied()
                    .collect()
            };
            let mut gone = expired(&state.answered, DONE_TTL);
            gone.extend(expired(&state.open, self.idle));
            for key in gone {
                state.remove(key);
            }
        }
        while state.answered_bytes > self.answered_max {
            let Some((_, key)) = state.answered.first_key_value() else {
                break;
            };
            state.remove(*key);
        }
        while state.bytes > self.max_bytes {
            let oldest = state
                .answered
                .first_key_value()
                .or(state.open.first_key_value());
            let Some((_, key)) = oldest else {
                break;
            };
            state.remove(*key);
        }
    }
}

impl Logs {
    fn remove(&mut self, key: Key) {
        if let Some(log) = self.streams.remove(&key) {
            self.names.remove(&log.name);
            if let Some(write) = log.write {
                self.ages(log.done).remove(&write);
            }
            self.bytes -= log.bytes;
            if log.done {
                self.answered_bytes -= log.bytes;
            }
        }
    }

    fn ages(&mut self, answered: bool) -> &mut BTreeMap<u64, Key> {
        if answered {
            &mut self.answered
        } else {
            &mut self.open
        }
    }
}

/// An event's id: its stream's key in hex (32 digits), a dash, its index in the stream.
fn event_id(key: Key, index: u64) -> String {
    format!("{key:032x}-{index}")
}

fn parse_id(id: &str) -> Option<(Key, u64)> {
    let (key, index) = id.split_once('-')?;
    if key.len() != 32 {
        return None;
    }
    Some((Key::from_str_radix(key, 16).ok()?, index.parse().ok()?))
}

/// The stream part of an event id (what comes before its last dash), if it can be one of
/// this store's: counted per stream by the HTTP layer's limits.
pub(super) fn stream_of(id: &str) -> Option<&str> {
    let (key, _) = id.rsplit_once('-')?;
    (key.len() == 32 && key.bytes().all(|b| b.is_ascii_hexdigit())).then_some(key)
}

/// A new stream key: 128 bits from the operating system's random number generator.
fn new_key() -> Result<Key, EventStoreError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)
        .map_err(|error| format!("no random stream key (the OS generator failed): {error}"))?;
    Ok(Key::from_le_bytes(bytes))
}

impl MemoryEventStore {
    /// Marks the stream of event `id` as `session`'s: from now on only that session's
    /// replays are served. Called before the event is sent, so no client holds an id of
    /// the stream before it is claimed.
    pub(super) fn claim(&self, id: &str, session: &Arc<str>) {
        let Some((key, _)) = parse_id(id) else {
            return;
        };
        let mut state = self.0.lock();
        if let Some(log) = state.streams.get_mut(&key)
            && log.owner.is_none()
        {
            log.owner = Some(Arc::clone(session));
        }
    }

    /// The events after `last_event_id` on its stream, if the stream is `session`'s (a
    /// stream answered outside any session: `None`); then, while the stream has not
    /// carried its response, the events that follow as they are stored (until the
    /// response, the stream expires, the client goes away, or a newer replay of the same
    /// stream starts).
    pub(super) fn replay(
        &self,
        last_event_id: &str,
        session: Option<&str>,
    ) -> Result<EventStream, EventStoreError> {
        let (key, after) = parse_id(last_event_id).ok_or(UNKNOWN)?;
        let (mut changed, ended) = {
            let mut state = self.0.lock();
            let log = state.streams.get_mut(&key).ok_or(UNKNOWN)?;
            if log.owner.as_deref() != session {
                return Err(UNKNOWN.into());
            }
            if log
                .events
                .front()
                .is_some_and(|(first, _, _)| *first > after + 1)
            {
                return Err(format!("events after `{last_event_id}` are no longer kept").into());
            }
            let ended = CancellationToken::new();
            if let Some(previous) = log.replaying.replace(ended.clone()) {
                previous.cancel();
            }
            let changed = log
                .changed
                .get_or_insert_with(|| watch::Sender::new(()))
                .subscribe();
            (changed, ended)
        };
        let (tx, rx) = tokio::sync::mpsc::channel(16);
        let store = Arc::clone(&self.0);
        let ttl = store.idle;
        tokio::spawn(async move {
            let mut cursor = after;
            loop {
                changed.borrow_and_update();
                let (events, done) = {
                    let state = store.lock();
                    let Some(log) = state.streams.get(&key) else {
                        return;
                    };
                    let events: Vec<_> = log
                        .events
                        .iter()
                        .filter(|(index, _, _)| *index > cursor)
                        .map(|(index, kept, _)| (*index, kept.event(key, *index)))
                        .collect();
                    (events, log.done)
                };
                for (index, event) in events {
                    cursor = index;
                    let Some(event) = event else {
                        return;
                    };
                    tokio::select! {
                        sent = tx.send(event) => if sent.is_err() { return },
                        () = ended.cancelled() => return,
                    }
                }
                if done {
                    return;
                }
                tokio::select! {
                    next = tokio::time::timeout(ttl, changed.changed()) => match next {
                        Ok(Ok(())) => {}
                        _ => return, // expired, or the stream was dropped
                    },
                    () = tx.closed() => return, // the client went away
                    () = ended.cancelled() => return, // a newer replay took over
                }
            }
        });
        Ok(Box::pin(tokio_stream_from(rx)))
    }
}

#[async_trait::async_trait]
impl EventStore for MemoryEventStore {
    async fn store_event(
        &self,
        stream_id: &str,
        event: &ServerSseMessage,
    ) -> Result<EventId, EventStoreError> {
        // Written before the lock is taken.
        let json = match event.message.as_deref().map(serde_json::to_vec).transpose() {
            Ok(json) => json.map(Vec::into_boxed_slice),
            Err(error) => return Err(format!("the event could not be written: {error}").into()),
        };
        let size = json.as_ref().map_or(0, |json| json.len()) + EVENT_OVERHEAD;
        let stored = Kept {
            json,
            retry: event.retry,
        };
        let shared = &self.0;
        let mut state = shared.lock();
        let state = &mut *state;
        // Read under the lock, so the age maps are in time order too.
        let now = Instant::now();
        let key = match state.names.get(stream_id) {
            Some(key) => *key,
            None => {
                let key = new_key()?;
                let name: Arc<str> = Arc::from(stream_id);
                state.names.insert(Arc::clone(&name), key);
                state.bytes += STREAM_OVERHEAD;
                state.streams.insert(
                    key,
                    Log {
                        name,
                        events: VecDeque::new(),
                        next_index: 0,
                        done: false,
                        touched: now,
                        write: None,
                        bytes: STREAM_OVERHEAD,
                        changed: None,
                        owner: None,
                        replaying: None,
                    },
                );
                key
            }
        };
        let log = state.streams.get_mut(&key).expect("just inserted");
        let index = log.next_index;
        log.next_index += 1;
        let id = event_id(key, index);
        let (was_done, was_bytes, was_write) = (log.done, log.bytes, log.write);
        if matches!(
            event.message.as_deref(),
            Some(ServerJsonRpcMessage::Response(_) | ServerJsonRpcMessage::Error(_))
        ) {
            log.done = true;
        }
        if log.events.len() == EVENTS_PER_STREAM
            && let Some((_, _, dropped)) = log.events.pop_front()
        {
            log.bytes -= dropped;
        }
        log.events.push_back((index, stored, size));
        log.bytes += size;
        log.touched = now;
        log.write = Some(state.writes);
        if let Some(changed) = &log.changed {
            changed.send_replace(());
        }
        let (done, bytes) = (log.done, log.bytes);
        state.bytes = state.bytes - was_bytes + bytes;
        if was_done {
            state.answered_bytes -= was_bytes;
        }
        if done {
            state.answered_bytes += bytes;
        }
        if let Some(write) = was_write {
            state.ages(was_done).remove(&write);
        }
        let write = state.writes;
        state.ages(done).insert(write, key);
        state.writes += 1;
        shared.evict(state, now);
        Ok(id)
    }

    /// A replay without a session (the SDK's path for MCP 2026-07-28 clients): served
    /// only for a stream answered outside any session.
    async fn replay_events_after(
        &self,
        last_event_id: &str,
    ) -> Result<EventStream, EventStoreError> {
        self.replay(last_event_id, None)
    }
}

fn tokio_stream_from(
    mut rx: tokio::sync::mpsc::Receiver<ServerSseMessage>,
) -> impl futures_util::Stream<Item = ServerSseMessage> + Send + Sync + 'static {
    futures_util::stream::poll_fn(move |cx| rx.poll_recv(cx))
}

#[cfg(test)]
#[path = "events_tests.rs"]
mod tests;
