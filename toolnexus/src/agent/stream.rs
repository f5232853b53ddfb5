//! [`EventStream`]: a run as an owned stream of its [`Event`]s, for a UI; the stream is what
//! drives the run.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context as TaskContext, Poll, Waker};

use futures_util::Stream;

use crate::agent::client::Client;
use crate::agent::events::{Event, Listener, OwnedEvent};
use crate::agent::run::RunResult;
use crate::agent::talk::LoopCaller;
use crate::tool::context::CancellationToken;

/// How many events may wait in a stream's buffer before the progress and log lines
/// that tools send from tasks of their own are dropped (the run's own events never are:
/// the run does not move while its events wait, see [`EventStream`]).
pub const STREAM_BUFFER: usize = 1024;

type Run = Pin<Box<dyn Future<Output = RunResult> + Send>>;

/// A run as a [`Stream`] of owned [`Event`]s ([`OwnedEvent`]): what
/// [`RunRequest::stream`](crate::agent::RunRequest::stream) and its siblings give. It is `'static` and `Send`: hand it to a web
/// framework as a response body, or move it to another task.
///
/// The stream **drives** the run: the run advances only while the stream is polled, and
/// only while no event of it waits to be read. A slow consumer therefore slows the run
/// (back-pressure), and the events waiting at any time are at most what one step of the
/// run produced (a model turn's streamed pieces as they arrive, one tool result), never
/// an unbounded backlog. Progress and log lines that a tool sends from a task of its own
/// (which the stream cannot pause) are kept up to [`STREAM_BUFFER`] waiting events and
/// dropped past it. Deadlines and timeouts keep running while the consumer waits.
///
/// The first event is [`Event::RunStarted`] (with the run-store id when there is one)
/// and the last [`Event::RunFinished`], with the run as it was recorded (its
/// [`RunResult::id`] included); then the stream ends.
///
/// Dropping the stream before its end cancels the run, as
/// [`Client::cancellation`](Client::cancellation) would: the run stops at once, every
/// unfinished call gets its explicit `cancelled: …` result (the transcript stays
/// balanced) and, with a [store](Client::store), the run's end is recorded as
/// incomplete ([`StopReason::Cancelled`](crate::agent::StopReason::Cancelled)), to read back with the store's `result` and
/// pick up with [`Client::run_from`]. That wind-down runs on the Tokio runtime the stream
/// is dropped in; dropped outside one, the run is simply dropped, and a stored run is then
/// taken up by [`Client::recover`] once its lease expires. A stream dropped before it was
/// ever polled starts nothing.
///
/// ```
/// use futures_util::StreamExt as _;
/// use toolnexus::{Client, Event, Reply, ScriptedModel, Toolkit};
///
/// let client = Client::new(ScriptedModel::new([Reply::text("Deployed.")]));
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// # rt.block_on(async {
/// let mut events = client.run("Deploy the service", &Toolkit::new()).stream();
/// while let Some(event) = events.next().await {
///     println!("{event}"); // its JSON form
///     if let Event::RunFinished { run } = &event {
///         assert_eq!(run.text, "Deployed.");
///     }
/// }
/// # });
/// ```
pub struct EventStream {
    queue: Arc<Queue>,
    run: Option<Run>,
    cancel: CancellationToken,
    run_id: Option<String>,
    polled: bool,
}

impl EventStream {
    /// A stream of the run `drive` makes with a copy of `client` whose events come here
    /// and whose cancellation the stream holds.
    pub(crate) fn new<F, Fut>(client: &Client, run_id: Option<String>, drive: F) -> EventStream
    where
        F: FnOnce(Client) -> Fut,
        Fut: Future<Output = RunResult> + Send + 'static,
    {
        let queue = Arc::new(Queue::default());
        let mut client = client.clone();
        let cancel = client
            .cancellation
            .as_ref()
            .map_or_else(CancellationToken::new, CancellationToken::child_token);
        client.cancellation = Some(cancel.clone());
        let own = client.tools.listener.take();
        let sink = Arc::clone(&queue);
        let listener: Arc<Listener> = Arc::new(move |event: &Event<'_>| {
            sink.push(event);
            if let Some(own) = &own {
                own(event);
            }
        });
        client.tools.caller = Some(LoopCaller::shared(
            Some(Arc::clone(&listener)),
            Arc::clone(&client.model),
        ));
        client.tools.listener = Some(listener);
        queue.push_owned(Event::RunStarted {
            run_id: run_id.clone().map(Cow::Owned),
        });
        EventStream {
            queue,
            run: Some(Box::pin(drive(client))),
            cancel,
            run_id,
            polled: false,
        }
    }

    /// The run's id in the run store: known from the start for a run the store records
    /// (with [`Client::store`]), and for any run once it has finished (`None` for a
    /// run without a store).
    pub fn run_id(&self) -> Option<&str> {
        self.run_id.as_deref()
    }

    /// Whether the run has finished (its [`Event::RunFinished`] may still wait to be
    /// read).
    pub fn is_finished(&self) -> bool {
        self.run.is_none()
    }
}

impl Stream for EventStream {
    type Item = OwnedEvent;

    fn poll_next(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Option<OwnedEvent>> {
        let this = self.get_mut();
        this.polled = true;
        loop {
            if let Some(event) = this.queue.pop() {
                return Poll::Ready(Some(event));
            }
            let Some(run) = this.run.as_mut() else {
                return Poll::Ready(None);
            };
            this.queue.wake_with(cx.waker());
            match run.as_mut().poll(cx) {
                Poll::Ready(result) => {
                    this.run = None;
                    if result.id.is_some() {
                        this.run_id.clone_from(&result.id);
                    }
                    this.queue.push_owned(Event::RunFinished {
                        run: Cow::Owned(result),
                    });
                }
                Poll::Pending if this.queue.is_empty() => return Poll::Pending,
                Poll::Pending => {}
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let waiting = self.queue.len();
        match self.run {
            Some(_) => (waiting, None),
            None => (waiting, Some(waiting)),
        }
    }
}

impl Drop for EventStream {
    fn drop(&mut self) {
        self.queue.close();
        let Some(run) = self.run.take() else {
            return;
        };
        if !self.polled {
            return;
        }
        self.cancel.cancel();
        // Cancelled, the run winds down at once: its calls get their results and a store
        // records its end. That needs a runtime; without one the store's lease lapses.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            drop(runtime.spawn(run));
        }
    }
}

impl fmt::Debug for EventStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventStream")
            .field("run_id", &self.run_id)
            .field("finished", &self.run.is_none())
            .field("waiting", &self.queue.len())
            .finish_non_exhaustive()
    }
}

/// Gives the task back to its poller once: the run's point to let a stream's reader take
/// the events so far before the run goes on, when every step of it is ready at once.
pub(crate) async fn yield_once() {
    let mut yielded = false;
    std::future::poll_fn(|cx| {
        if yielded {
            Poll::Ready(())
        } else {
            yielded = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    })
    .await;
}

/// The events waiting to be read, and who to wake for one that comes from elsewhere.
#[derive(Default)]
struct Queue(Mutex<Waiting>);

#[derive(Default)]
struct Waiting {
    events: VecDeque<OwnedEvent>,
    waker: Option<Waker>,
    closed: bool,
    dropped: u64,
}

impl Queue {
    fn lock(&self) -> std::sync::MutexGuard<'_, Waiting> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Takes an event from the run. Its own `RunFinished` is left out: the stream sends
    /// the run as it was recorded instead, once the run's future is done.
    fn push(&self, event: &Event<'_>) {
        if matches!(event, Event::RunFinished { .. }) {
            return;
        }
        let chatter = is_chatter(event);
        if chatter && self.lock().events.len() >= STREAM_BUFFER {
            self.drop_one();
            return;
        }
        self.push_owned(event.owned());
    }

    fn push_owned(&self, event: OwnedEvent) {
        let waker = {
            let mut waiting = self.lock();
            if waiting.closed {
                return;
            }
            waiting.events.push_back(event);
            waiting.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    fn drop_one(&self) {
        let mut waiting = self.lock();
        waiting.dropped += 1;
        if waiting.dropped.is_power_of_two() {
            tracing::warn!(
                dropped = waiting.dropped,
                "an event stream's reader is behind: progress and log lines dropped"
            );
        }
    }

    fn pop(&self) -> Option<OwnedEvent> {
        self.lock().events.pop_front()
    }

    fn len(&self) -> usize {
        self.lock().events.len()
    }

    fn is_empty(&self) -> bool {
        self.lock().events.is_empty()
    }

    fn wake_with(&self, waker: &Waker) {
        let mut waiting = self.lock();
        match &mut waiting.waker {
            Some(old) => old.clone_from(waker),
            none => *none = Some(waker.clone()),
        }
    }

    fn close(&self) {
        let mut waiting = self.lock();
        waiting.closed = true;
        waiting.events.clear();
    }
}

/// Progress and log lines, which a tool may send from a task of its own.
fn is_chatter(event: &Event<'_>) -> bool {
    match event {
        Event::Progress { .. } | Event::Log { .. } => true,
        Event::Agent { event, .. } => is_chatter(event),
        _ => false,
    }
}

impl Client {
    /// This client with the next run's store id chosen, when it has a store.
    pub(crate) fn with_run_id(&self) -> (Client, Option<String>) {
        if let Some(durable) = &self.store {
            let mut client = self.clone();
            let id = durable
                .run_id
                .clone()
                .unwrap_or_else(|| crate::agent::journal::record::new_id("run_"));
            if let Some(durable) = &mut client.store {
                durable.run_id = Some(id.clone());
            }
            return (client, Some(id));
        }
        (self.clone(), None)
    }
}
