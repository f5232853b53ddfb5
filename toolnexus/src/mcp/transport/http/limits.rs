//! What each client may hold: how many streams it follows by replay at once, and how long
//! its session lives without doing anything.
//!
//! - **Idle sessions.** A session's clock is reset by its requests that do something
//!   (`tools/call`, `tools/list`, answers to the server's requests…) and runs only while
//!   none is in flight (its response stream still open, or a replay following one). Pings
//!   and notifications do not reset it, so a client that only pings cannot keep a session,
//!   and with it a place under the session cap, for ever. Sessions idle past the timeout
//!   are closed by a sweep (at most every second while requests arrive, and at once when
//!   an `initialize` finds the cap reached).
//! - **Replays.** A session follows at most [`REPLAYS_PER_SESSION`] streams by replay at a
//!   time; the session-less replays of MCP 2026-07-28 clients, each stream its own client,
//!   at most as many streams in all as the session cap. A new replay of a stream already
//!   followed takes over from the old one (the event store ends it), so it is not counted
//!   twice. Past the limit a replay gets `429 Too Many Requests`.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes, HttpBody};
use axum::response::Response;
use rmcp::transport::streamable_http_server::session::SessionId;
use tokio::time::Instant;

/// The streams one session may follow by replay at once.
pub(super) const REPLAYS_PER_SESSION: usize = 8;
/// The longest gap between sweeps for idle sessions (while requests arrive).
const SWEEP_EVERY: Duration = Duration::from_secs(1);

pub(super) struct Limits {
    idle: Duration,
    /// The session-less streams followed by replay at once.
    max_open_replays: usize,
    state: Mutex<Counts>,
}

/// What each session and each replayed stream holds, behind the limits' one lock.
struct Counts {
    sessions: HashMap<SessionId, Use>,
    /// The session-less streams followed by replay, and the replays of each.
    open_replays: HashMap<Box<str>, usize>,
    swept: Instant,
}

/// What a session does.
struct Use {
    /// The session's id (the map's key too), for the holds.
    id: SessionId,
    /// When it last did something, or finished doing it.
    last: Instant,
    /// Its requests in flight and its replays.
    busy: usize,
    /// The streams it follows by replay: (stream, replays of it).
    replays: Vec<(Box<str>, usize)>,
}

/// Why a replay is refused: the streams followed, and the limit.
pub(super) struct TooManyReplays {
    pub(super) followed: usize,
    pub(super) limit: usize,
}

impl Limits {
    pub(super) fn new(idle: Duration, max_open_replays: usize) -> Arc<Self> {
        Arc::new(Limits {
            idle,
            max_open_replays,
            state: Mutex::new(Counts {
                sessions: HashMap::new(),
                open_replays: HashMap::new(),
                swept: Instant::now(),
            }),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Counts> {
        self.state
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    /// A session was opened (its `initialize` answered).
    pub(super) fn opened(&self, session: SessionId) {
        let fresh = Use {
            id: Arc::clone(&session),
            last: Instant::now(),
            busy: 0,
            replays: Vec::new(),
        };
        self.lock().sessions.insert(session, fresh);
    }

    /// A session was closed.
    pub(super) fn closed(&self, session: &str) {
        self.lock().sessions.remove(session);
    }

    /// `session` does something: its clock is reset, and stays so until the returned
    /// hold is dropped (with the response). `None` for a session this server did not open.
    pub(super) fn active(self: &Arc<Self>, session: &str) -> Option<Hold> {
        let mut state = self.lock();
        let use_ = state.sessions.get_mut(session)?;
        use_.last = Instant::now();
        use_.busy += 1;
        Some(Hold {
            limits: Arc::clone(self),
            session: Some(Arc::clone(&use_.id)),
            stream: None,
        })
    }

    /// Admits a replay of `stream` by `session` (by a session-less client: `None`), or
    /// refuses it past the limit. An id that is none of ours holds nothing: the replay is
    /// refused at once anyway.
    pub(super) fn replay(
        self: &Arc<Self>,
        session: Option<&str>,
        stream: Option<&str>,
    ) -> Result<Option<Hold>, TooManyReplays> {
        let Some(stream) = stream else {
            return Ok(None);
        };
        let mut state = self.lock();
        // A session this server did not open counts as none: the SDK serves the replay
        // without a session, or refuses it.
        if let Some(use_) = session.and_then(|session| state.sessions.get_mut(session)) {
            if !follow(&mut use_.replays, stream, REPLAYS_PER_SESSION) {
                return Err(TooManyReplays {
                    followed: use_.replays.len(),
                    limit: REPLAYS_PER_SESSION,
                });
            }
            use_.busy += 1;
            use_.last = Instant::now();
            return Ok(Some(Hold {
                limits: Arc::clone(self),
                session: Some(Arc::clone(&use_.id)),
                stream: Some(stream.into()),
            }));
        }
        let followed = state.open_replays.len();
        match state.open_replays.get_mut(stream) {
            Some(count) => *count += 1,
            None if followed >= self.max_open_replays => {
                return Err(TooManyReplays {
                    followed,
                    limit: self.max_open_replays,
                });
            }
            None => {
                state.open_replays.insert(stream.into(), 1);
            }
        }
        Ok(Some(Hold {
            limits: Arc::clone(self),
            session: None,
            stream: Some(stream.into()),
        }))
    }

    /// The sessions idle past the timeout, forgotten here: the caller closes them. Looked
    /// for at most once a [`SWEEP_EVERY`] unless `now_anyway`.
    pub(super) fn expired(&self, now_anyway: bool) -> Vec<SessionId> {
        let now = Instant::now();
        let mut state = self.lock();
        let every = SWEEP_EVERY.min(self.idle / 4);
        if !now_anyway && now.duration_since(state.swept) < every {
            return Vec::new();
        }
        state.swept = now;
        let idle = self.idle;
        let gone: Vec<SessionId> = state
            .sessions
            .iter()
            .filter(|(_, use_)| use_.busy == 0 && now.duration_since(use_.last) >= idle)
            .map(|(id, _)| Arc::clone(id))
            .collect();
        for id in &gone {
            state.sessions.remove(id);
        }
        gone
    }

    fn release(&self, session: Option<&SessionId>, stream: Option<&str>) {
        let mut state = self.lock();
        match session {
            Some(session) => {
                let Some(use_) = state.sessions.get_mut(session) else {
                    return;
                };
                use_.busy = use_.busy.saturating_sub(1);
                use_.last = Instant::now();
                if let Some(stream) = stream {
                    unfollow(&mut use_.replays, stream);
                }
            }
            None => {
                if let Some(stream) = stream
                    && let Some(count) = state.open_replays.get_mut(stream)
                {
                    *count -= 1;
                    if *count == 0 {
                        state.open_replays.remove(stream);
                    }
                }
            }
        }
    }
}

/// Counts one more replay of `stream` in `followed`, unless that makes more than `limit`
/// streams: `false`.
fn follow(followed: &mut Vec<(Box<str>, usize)>, stream: &str, limit: usize) -> bool {
    if let Some((_, count)) = followed.iter_mut().find(|(s, _)| &**s == stream) {
        *count += 1;
        return true;
    }
    if followed.len() >= limit {
        return false;
    }
    followed.push((stream.into(), 1));
    true
}

fn unfollow(followed: &mut Vec<(Box<str>, usize)>, stream: &str) {
    if let Some(at) = followed.iter().position(|(s, _)| &**s == stream) {
        followed[at].1 -= 1;
        if followed[at].1 == 0 {
            followed.swap_remove(at);
        }
    }
}

/// Something a client holds (a request in flight, a replay), released when dropped.
pub(super) struct Hold {
    limits: Arc<Limits>,
    session: Option<SessionId>,
    stream: Option<Box<str>>,
}

impl Drop for Hold {
    fn drop(&mut self) {
        self.limits
            .release(self.session.as_ref(), self.stream.as_deref());
    }
}

/// `response`, holding `hold` until its body ends or is dropped (the client went away).
pub(super) fn holding(response: Response, hold: Hold) -> Response {
    let (parts, body) = response.into_parts();
    Response::from_parts(parts, Body::new(Held { body, _hold: hold }))
}

struct Held {
    body: Body,
    _hold: Hold,
}

impl HttpBody for Held {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<hyper::body::Frame<Bytes>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_session_follows_a_bounded_number_of_streams() {
        let limits = Limits::new(Duration::from_secs(60), 2);
        limits.opened(Arc::from("s"));
        let streams: Vec<String> = (0..=REPLAYS_PER_SESSION).map(|n| n.to_string()).collect();
        let mut held = Vec::new();
        for stream in &streams[..REPLAYS_PER_SESSION] {
            held.push(limits.replay(Some("s"), Some(stream)).ok().unwrap());
        }
        let last = streams.last().map(String::as_str);
        assert!(limits.replay(Some("s"), last).is_err());
        // The same stream again is admitted (it takes over), and a freed place is reused.
        assert!(limits.replay(Some("s"), Some(&streams[0])).is_ok());
        held.pop();
        assert!(limits.replay(Some("s"), last).is_ok());
        // Ids that are none of ours hold nothing; an unknown session counts as none.
        assert!(matches!(limits.replay(Some("s"), None), Ok(None)));
        let _one = limits.replay(Some("other"), Some("x")).ok().unwrap();
        let _two = limits.replay(None, Some("y")).ok().unwrap();
        assert!(
            limits.replay(Some("other"), Some("z")).is_err(),
            "the session-less limit"
        );
    }

    #[tokio::test]
    async fn session_less_replays_share_their_own_limit() {
        let limits = Limits::new(Duration::from_secs(60), 2);
        let a = limits.replay(None, Some("a")).ok().unwrap();
        let _b = limits.replay(None, Some("b")).ok().unwrap();
        assert!(limits.replay(None, Some("c")).is_err());
        drop(a);
        assert!(limits.replay(None, Some("c")).is_ok());
    }

    #[tokio::test(start_paused = true)]
    async fn only_idle_sessions_expire() {
        let idle = Duration::from_secs(10);
        let limits = Limits::new(idle, 2);
        limits.opened(Arc::from("idle"));
        limits.opened(Arc::from("busy"));
        limits.opened(Arc::from("recent"));
        let call = limits.active("busy").unwrap();
        tokio::time::advance(idle).await;
        let _ = limits.active("recent").unwrap();
        assert_eq!(limits.expired(true), [Arc::<str>::from("idle")]);
        // The call ends: the clock starts again from its end.
        drop(call);
        tokio::time::advance(idle / 2).await;
        assert!(limits.expired(true).is_empty());
        tokio::time::advance(idle).await;
        let mut gone = limits.expired(true);
        gone.sort();
        assert_eq!(gone, [Arc::<str>::from("busy"), Arc::from("recent")]);
    }
}
