//! The event store that makes a session's response streams resumable: every event the
//! server sends on a stream is kept (bounded, for a while), so a client whose connection
//! dropped can `GET` with `Last-Event-ID` and receive what it missed, the call's result
//! included, even when the result was produced after the drop.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use rmcp::model::ServerJsonRpcMessage;
use rmcp::transport::streamable_http_server::session::{
    EventId, EventStore, EventStoreError, EventStream, ServerSseMessage,
};
use tokio::sync::watch;
use tokio::time::Instant;

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

/// The maps' hasher: their keys are made by this server and the SDK (stream names, our
/// own numbers), not chosen by clients, so a fast one will do (foldhash, seeded per
/// process; already under serde_json).
type Hasher = foldhash::fast::RandomState;

struct Logs {
    streams: HashMap<u64, Log, Hasher>,
    names: HashMap<Arc<str>, u64, Hasher>,
    /// The streams still without their response, by when they were last written, oldest
    /// first: (write number, key). Eviction takes from the front, so a store at its
    /// budget pays O(log n) per event, not a sort of every stream.
    open: BTreeMap<u64, u64>,
    /// The same for the streams that carried their response.
    answered: BTreeMap<u64, u64>,
    next: u64,
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
    fn event(&self, key: u64, index: u64) -> Option<ServerSseMessage> {
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
        let mut event = ServerSseMessage::priming(format!("{key}-{index}"), Duration::ZERO);
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
                next: 0,
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
            let expired = |ages: &BTreeMap<u64, u64>, ttl: Duration| -> Vec<u64> {
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
    fn remove(&mut self, key: u64) {
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

    fn ages(&mut self, answered: bool) -> &mut BTreeMap<u64, u64> {
        if answered {
            &mut self.answered
        } else {
            &mut self.open
        }
    }
}

fn parse_id(id: &str) -> Option<(u64, u64)> {
    let (key, index) = id.split_once('-')?;
    Some((key.parse().ok()?, index.parse().ok()?))
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
                let key = state.next;
                state.next += 1;
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
                    },
                );
                key
            }
        };
        let log = state.streams.get_mut(&key).expect("just inserted");
        let index = log.next_index;
        log.next_index += 1;
        let id = format!("{key}-{index}");
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

    /// The events after `last_event_id` on its stream; then, while the stream has not
    /// carried its response, the events that follow as they are stored (until the
    /// response, or the stream expires).
    async fn replay_events_after(
        &self,
        last_event_id: &str,
    ) -> Result<EventStream, EventStoreError> {
        let (key, after) = parse_id(last_event_id)
            .ok_or_else(|| format!("`{last_event_id}` is not an event id of this server"))?;
        let mut changed = {
            let mut state = self.0.lock();
            let log = state.streams.get_mut(&key).ok_or_else(|| {
                format!("the stream of event `{last_event_id}` is unknown or has expired")
            })?;
            if log
                .events
                .front()
                .is_some_and(|(first, _, _)| *first > after + 1)
            {
                return Err(format!("events after `{last_event_id}` are no longer kept").into());
            }
            log.changed
                .get_or_insert_with(|| watch::Sender::new(()))
                .subscribe()
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
                    if tx.send(event).await.is_err() {
                        return;
                    }
                }
                if done {
                    return;
                }
                match tokio::time::timeout(ttl, changed.changed()).await {
                    Ok(Ok(())) => {}
                    _ => return, // expired, or the stream was dropped
                }
            }
        });
        Ok(Box::pin(tokio_stream_from(rx)))
    }
}

fn tokio_stream_from(
    mut rx: tokio::sync::mpsc::Receiver<ServerSseMessage>,
) -> impl futures_util::Stream<Item = ServerSseMessage> + Send + Sync + 'static {
    futures_util::stream::poll_fn(move |cx| rx.poll_recv(cx))
}

#[cfg(test)]
mod tests {
    use futures_util::StreamExt;

    use super::*;

    fn response(id: i64) -> ServerSseMessage {
        let message = serde_json::json!({"jsonrpc": "2.0", "id": id, "result": {}});
        ServerSseMessage::from_message(serde_json::from_value(message).unwrap())
    }

    /// Streams `s0`, `s1`, … each carrying one answer; their event ids.
    async fn answer_streams(store: &MemoryEventStore, count: i64) -> Vec<String> {
        let mut ids = Vec::new();
        for n in 0..count {
            let id = store.store_event(&format!("s{n}"), &response(n)).await;
            ids.push(id.unwrap());
        }
        ids
    }

    #[tokio::test]
    async fn a_replay_waits_for_the_response_then_ends() {
        let store = MemoryEventStore::new(Duration::from_secs(60), 1 << 20, 1 << 20);
        let priming = ServerSseMessage::priming("ignored", Duration::from_secs(3));
        let first = store.store_event("s", &priming).await.unwrap();
        let mut replay = store.replay_events_after(&first).await.unwrap();
        // The response comes after the replay started: it is delivered, then the end.
        let id = store.store_event("s", &response(7)).await.unwrap();
        let event = replay.next().await.expect("the response");
        assert_eq!(event.event_id.as_deref(), Some(id.as_str()));
        assert!(replay.next().await.is_none());
        // Unknown ids are errors, not empty streams.
        assert!(store.replay_events_after("99-0").await.is_err());
        assert!(store.replay_events_after("not an id").await.is_err());
    }

    #[tokio::test]
    async fn the_byte_budget_drops_the_oldest_streams() {
        let store = MemoryEventStore::new(Duration::from_secs(60), 64 * 1024, 64 * 1024);
        let ids = answer_streams(&store, 1000).await;
        {
            let state = store.0.lock();
            assert!(state.bytes <= 64 * 1024, "{} bytes kept", state.bytes);
            assert!(state.streams.len() < 1000 && !state.streams.is_empty());
        }
        assert!(
            store.replay_events_after(&ids[0]).await.is_err(),
            "the oldest is gone"
        );
        let newest = store.replay_events_after(&ids[999]).await.unwrap();
        assert_eq!(
            newest.collect::<Vec<_>>().await.len(),
            0,
            "nothing after the last"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn answered_streams_expire_first_and_writes_renew_a_stream() {
        let store = MemoryEventStore::new(Duration::from_secs(60), 1 << 20, 1 << 20);
        let priming = ServerSseMessage::priming("ignored", Duration::from_secs(3));
        let answered = store.store_event("answered", &response(1)).await.unwrap();
        let open = store.store_event("open", &priming).await.unwrap();
        tokio::time::advance(DONE_TTL + Duration::from_secs(1)).await;
        store.store_event("later", &priming).await.unwrap();
        assert!(store.replay_events_after(&answered).await.is_err());
        assert!(store.replay_events_after(&open).await.is_ok());
        // The open stream is written again, so it is now younger than `later`.
        store.store_event("open", &priming).await.unwrap();
        let state = store.0.lock();
        let order: Vec<&str> = state
            .open
            .values()
            .map(|key| state.streams[key].name.as_ref())
            .collect();
        assert_eq!(order, ["later", "open"]);
    }

    #[tokio::test]
    async fn answered_streams_go_first_and_keep_to_their_own_budget() {
        let store = MemoryEventStore::new(Duration::from_secs(60), 64 * 1024, 8 * 1024);
        let priming = ServerSseMessage::priming("ignored", Duration::from_secs(3));
        let running = store.store_event("running", &priming).await.unwrap();
        let answers = answer_streams(&store, 200).await;
        {
            let state = store.0.lock();
            assert!(state.answered_bytes <= 8 * 1024, "{}", state.answered_bytes);
            let kept: usize = state.streams.values().map(|log| log.bytes).sum();
            assert_eq!(kept, state.bytes, "the running total is the sum");
        }
        assert!(store.replay_events_after(&answers[0]).await.is_err());
        assert!(store.replay_events_after(&answers[199]).await.is_ok());
        // The running call, older than every answer, is still resumable; its answer moves
        // it to the answered streams, where it is the newest.
        assert!(store.replay_events_after(&running).await.is_ok());
        store.store_event("running", &response(7)).await.unwrap();
        let state = store.0.lock();
        assert!(state.open.is_empty());
        let newest = state.answered.values().next_back().unwrap();
        assert_eq!(state.streams[newest].name.as_ref(), "running");
    }
}
