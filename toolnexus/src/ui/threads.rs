//! What a UI endpoint keeps between the runs of a thread besides its conversation: the
//! interrupts it handed out, each bound to its thread (and user) and answerable once;
//! all of it bounded (threads, the answered ids of a thread).

use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, PoisonError};

use crate::agent::StoreError;
use crate::agent::recent::Recent;
use crate::agent::run::RunResult;

/// How many answered interrupt ids a thread remembers (to tell "answered already" from
/// "unknown"); older ones are then unknown, which refuses them all the same.
const MAX_ANSWERED: usize = 64;

/// A run halted on a request, waiting for the interrupt that names it to be answered.
#[derive(Debug, Clone)]
pub(crate) struct ParkedRun {
    /// The thread the interrupt was issued on (its key: user and thread id).
    pub(crate) thread: String,
    /// The run as it halted (its pending request included).
    pub(crate) halted: RunResult,
}

/// Why a `resume` entry is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    /// No interrupt of this thread has this id (another thread's or user's included: a
    /// caller learns nothing of interrupts not issued to it).
    Unknown,
    /// The interrupt was answered already.
    Answered,
}

impl Refused {
    pub(crate) fn code(self) -> &'static str {
        match self {
            Refused::Unknown => "unknown_interrupt",
            Refused::Answered => "interrupt_already_answered",
        }
    }

    pub(crate) fn message(self, id: &str) -> String {
        match self {
            Refused::Unknown => format!("resume: this thread has no interrupt with the id {id:?}"),
            Refused::Answered => format!("resume: interrupt {id:?} was answered already"),
        }
    }
}

/// A thread whose conversation outgrew the endpoint's limit: it takes no more runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TooLong {
    pub(crate) bytes: usize,
    pub(crate) limit: usize,
}

impl TooLong {
    pub(crate) const CODE: &'static str = "thread_too_long";

    /// The refusal of a conversation store that keeps the thread's conversation, if it
    /// is one for a conversation that grew too long.
    pub(crate) fn of(error: &StoreError) -> Option<TooLong> {
        match error {
            StoreError::TooLong { bytes, limit, .. } => Some(TooLong {
                bytes: *bytes,
                limit: *limit,
            }),
            _ => None,
        }
    }

    pub(crate) fn message(self) -> String {
        format!(
            "the thread's transcript reached {} bytes, past this endpoint's limit of {} \
             (UiOptions::max_transcript_bytes); start a new thread",
            self.bytes, self.limit
        )
    }
}

#[derive(Default)]
struct Thread {
    /// Its open interrupt, if a run halted.
    open: Option<String>,
    /// Its interrupts answered already, oldest first.
    answered: VecDeque<String>,
}

struct ThreadMap {
    threads: Recent<Thread>,
    /// Open interrupts by id.
    open: HashMap<String, ParkedRun>,
}

/// The interrupts of one endpoint's threads, keyed by `user/thread id`.
pub(crate) struct Threads {
    state: Mutex<ThreadMap>,
    /// Whether the client keeps its runs in a store: only the request of a halted run
    /// is kept here then.
    stored: bool,
}

impl Threads {
    pub(crate) fn new(max_threads: usize, stored: bool) -> Self {
        Threads {
            state: Mutex::new(ThreadMap {
                threads: Recent::new(max_threads),
                open: HashMap::new(),
            }),
            stored,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ThreadMap> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether the thread has an interrupt still waiting for an answer.
    pub(crate) fn has_open(&self, thread: &str) -> bool {
        self.lock()
            .threads
            .get(thread)
            .is_some_and(|kept| kept.open.is_some())
    }

    /// Takes interrupt `id` to answer it on `thread`: once only, and only there.
    pub(crate) fn take(&self, thread: &str, id: &str) -> Result<ParkedRun, Refused> {
        let mut state = self.lock();
        let state = &mut *state;
        if state
            .open
            .get(id)
            .is_some_and(|parked| parked.thread == thread)
        {
            let parked = state.open.remove(id).ok_or(Refused::Unknown)?;
            if state.threads.get(thread).is_some() {
                let kept = state.threads.used(thread).0;
                kept.open = None;
                kept.answered.push_back(id.to_owned());
                if kept.answered.len() > MAX_ANSWERED {
                    kept.answered.pop_front();
                }
            }
            return Ok(parked);
        }
        match state.threads.get(thread) {
            Some(kept) if kept.answered.iter().any(|answered| answered == id) => {
                Err(Refused::Answered)
            }
            _ => Err(Refused::Unknown),
        }
    }

    /// Records the end of a run of `thread`: the interrupt `id` when the run halted (the
    /// thread's earlier one is no longer open). The thread used least recently is
    /// forgotten past the cap on threads, its open interrupt with it.
    pub(crate) fn finished(&self, thread: &str, run: &RunResult, interrupt: Option<&str>) {
        let mut state = self.lock();
        let state = &mut *state;
        let (kept, forgotten) = state.threads.used(thread);
        let old = kept.open.take();
        kept.open = interrupt.map(str::to_owned);
        for id in old
            .into_iter()
            .chain(forgotten.into_iter().filter_map(|(_, gone)| gone.open))
        {
            state.open.remove(&id);
        }
        if let Some(id) = interrupt {
            // With a store, the store resumes the run: only the request is needed.
            let halted = if self.stored {
                let mut halted = RunResult::empty(Vec::new());
                halted.pending = run.pending.clone();
                halted
            } else {
                run.clone()
            };
            let parked = ParkedRun {
                thread: thread.to_owned(),
                halted,
            };
            state.open.insert(id.to_owned(), parked);
        }
    }

    /// How many threads are kept (for tests).
    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().threads.len()
    }
}

#[cfg(test)]
mod tests {
    use super::{Refused, Threads};
    use crate::agent::run::{RunResult, RunStatus};
    use crate::model::message::Message;

    fn run(text: &str) -> RunResult {
        let mut run = RunResult::empty(vec![Message::User {
            content: text.into(),
        }]);
        run.status = RunStatus::Pending;
        run
    }

    #[test]
    fn an_interrupt_answers_only_on_its_thread_and_once() {
        let threads = Threads::new(10, false);
        threads.finished("a", &run("x"), Some("int_1"));
        assert!(threads.has_open("a"));
        assert!(!threads.has_open("b"));
        assert_eq!(threads.take("b", "int_1").unwrap_err(), Refused::Unknown);
        assert!(threads.take("a", "int_1").is_ok());
        assert!(!threads.has_open("a"));
        assert_eq!(threads.take("a", "int_1").unwrap_err(), Refused::Answered);
        assert_eq!(
            threads.take("b", "int_1").unwrap_err(),
            Refused::Unknown,
            "another thread learns nothing of it"
        );
        assert_eq!(threads.take("a", "int_2").unwrap_err(), Refused::Unknown);
    }

    #[test]
    fn the_least_recently_used_thread_is_forgotten_past_the_cap() {
        let threads = Threads::new(2, false);
        threads.finished("a", &run("1"), Some("int_a"));
        threads.finished("b", &run("2"), Some("int_b"));
        threads.finished("a", &run("3"), Some("int_a2"));
        threads.finished("c", &run("4"), None);
        assert_eq!(threads.len(), 2);
        assert!(!threads.has_open("b"), "b was forgotten");
        assert_eq!(threads.take("b", "int_b").unwrap_err(), Refused::Unknown);
        // A's first interrupt was replaced by the second, which is still open.
        assert_eq!(threads.take("a", "int_a").unwrap_err(), Refused::Unknown);
        assert!(threads.take("a", "int_a2").is_ok());
        threads.finished("d", &run("5"), None);
        threads.finished("e", &run("6"), None);
        assert_eq!(threads.len(), 2);
    }

    #[test]
    fn a_thread_remembers_a_bounded_number_of_answered_ids() {
        let threads = Threads::new(10, false);
        for i in 0..(super::MAX_ANSWERED + 5) {
            let id = format!("int_{i}");
            threads.finished("a", &run("x"), Some(&id));
            threads.take("a", &id).unwrap();
        }
        assert_eq!(threads.take("a", "int_0").unwrap_err(), Refused::Unknown);
        let last = format!("int_{}", super::MAX_ANSWERED + 4);
        assert_eq!(threads.take("a", &last).unwrap_err(), Refused::Answered);
    }
}
