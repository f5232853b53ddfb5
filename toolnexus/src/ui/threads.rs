//! What a UI endpoint keeps between the runs of a thread: its transcript, and the
//! interrupts it handed out, each bound to its thread (and user) and answerable once;
//! all of it bounded (threads, a transcript's bytes, the answered ids of a thread).

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Mutex, PoisonError};

use crate::agent::run::RunResult;
use crate::model::message::Message;

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

/// A thread whose transcript outgrew the endpoint's limit: it takes no more runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TooLong {
    pub(crate) bytes: usize,
    pub(crate) limit: usize,
}

impl TooLong {
    pub(crate) const CODE: &'static str = "thread_too_long";

    pub(crate) fn message(self) -> String {
        format!(
            "the thread's transcript reached {} bytes, past this endpoint's limit of {} \
             (UiOptions::with_max_transcript_bytes); start a new thread",
            self.bytes, self.limit
        )
    }
}

#[derive(Default)]
struct Thread {
    transcript: Vec<Message>,
    /// When it was last used (the key of `ThreadMap::by_use`).
    used: u64,
    /// Its open interrupt, if a run halted.
    open: Option<String>,
    /// Its interrupts answered already, oldest first.
    answered: VecDeque<String>,
    /// Set once its transcript outgrew the limit.
    too_long: Option<TooLong>,
}

#[derive(Default)]
struct ThreadMap {
    threads: HashMap<String, Thread>,
    /// Thread keys by last use, least recent first.
    by_use: BTreeMap<u64, String>,
    clock: u64,
    /// Open interrupts by id.
    open: HashMap<String, ParkedRun>,
}

/// The threads of one endpoint, keyed by `user/thread id`.
pub(crate) struct Threads {
    state: Mutex<ThreadMap>,
    max_threads: usize,
    max_transcript_bytes: usize,
    /// Whether the client keeps the transcripts in its run store: only the open
    /// interrupts are kept here then.
    stored: bool,
}

impl Threads {
    pub(crate) fn new(max_threads: usize, max_transcript_bytes: usize, stored: bool) -> Self {
        Threads {
            state: Mutex::default(),
            max_threads: max_threads.max(1),
            max_transcript_bytes,
            stored,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ThreadMap> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The thread's transcript so far (empty for a new thread), or why it takes no runs.
    pub(crate) fn transcript(&self, thread: &str) -> Result<Vec<Message>, TooLong> {
        let state = self.lock();
        match state.threads.get(thread) {
            None => Ok(Vec::new()),
            Some(Thread {
                too_long: Some(too_long),
                ..
            }) => Err(*too_long),
            Some(kept) => Ok(kept.transcript.clone()),
        }
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
            if let Some(kept) = state.threads.get_mut(thread) {
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

    /// Records the end of a run of `thread`: its transcript, and the interrupt `id` when
    /// the run halted. A transcript past the limit is not kept (nor the interrupt): the
    /// thread takes no more runs, and the error says so. The thread used least recently
    /// is forgotten past the cap on threads.
    pub(crate) fn finished(
        &self,
        thread: &str,
        run: &RunResult,
        interrupt: Option<&str>,
    ) -> Result<(), TooLong> {
        let bytes = if self.stored {
            0
        } else {
            json_len(&run.messages)
        };
        let mut state = self.lock();
        let state = &mut *state;
        state.clock += 1;
        let now = state.clock;
        let kept = state.threads.entry(thread.to_owned()).or_default();
        if kept.used != 0 {
            state.by_use.remove(&kept.used);
        }
        kept.used = now;
        state.by_use.insert(now, thread.to_owned());
        if let Some(old) = kept.open.take() {
            state.open.remove(&old);
        }
        let outcome = if bytes > self.max_transcript_bytes {
            let too_long = TooLong {
                bytes,
                limit: self.max_transcript_bytes,
            };
            kept.transcript = Vec::new();
            kept.too_long = Some(too_long);
            Err(too_long)
        } else {
            if let Some(id) = interrupt {
                kept.open = Some(id.to_owned());
                // With a store, the store resumes the run: only the request is needed.
                let halted = if self.stored {
                    let mut halted = RunResult::empty(Vec::new());
                    halted.pending = run.pending.clone();
                    halted
                } else {
                    run.clone()
                };
                state.open.insert(
                    id.to_owned(),
                    ParkedRun {
                        thread: thread.to_owned(),
                        halted,
                    },
                );
            }
            if !self.stored {
                kept.transcript = run.messages.clone();
            }
            Ok(())
        };
        while state.threads.len() > self.max_threads {
            let Some((_, old)) = state.by_use.pop_first() else {
                break;
            };
            if let Some(forgotten) = state.threads.remove(&old)
                && let Some(id) = forgotten.open
            {
                state.open.remove(&id);
            }
        }
        outcome
    }

    /// How many threads are kept (for tests).
    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().threads.len()
    }
}

/// The length of `messages` as JSON, counted without building the text.
fn json_len(messages: &[Message]) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // A transcript always serializes; a failure counts what was written.
    let _ = serde_json::to_writer(&mut count, messages);
    count.0
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
        let threads = Threads::new(10, 1 << 20, false);
        threads.finished("a", &run("x"), Some("int_1")).unwrap();
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
        let threads = Threads::new(2, 1 << 20, false);
        threads.finished("a", &run("1"), Some("int_a")).unwrap();
        threads.finished("b", &run("2"), None).unwrap();
        threads.finished("a", &run("3"), Some("int_a2")).unwrap();
        threads.finished("c", &run("4"), None).unwrap();
        assert_eq!(threads.len(), 2);
        assert!(
            threads.transcript("b").unwrap().is_empty(),
            "b was forgotten"
        );
        assert_eq!(threads.transcript("a").unwrap().len(), 1);
        // A's first interrupt was replaced by the second, which is still open.
        assert_eq!(threads.take("a", "int_a").unwrap_err(), Refused::Unknown);
        assert!(threads.take("a", "int_a2").is_ok());
        threads.finished("d", &run("5"), None).unwrap();
        threads.finished("e", &run("6"), None).unwrap();
        assert_eq!(threads.len(), 2);
    }

    #[test]
    fn a_transcript_past_the_limit_ends_the_thread() {
        let threads = Threads::new(10, 64, false);
        let long = "x".repeat(100);
        let refused = threads
            .finished("a", &run(&long), Some("int_1"))
            .unwrap_err();
        assert!(refused.bytes > 100 && refused.limit == 64, "{refused:?}");
        assert_eq!(threads.transcript("a").unwrap_err(), refused);
        assert_eq!(threads.take("a", "int_1").unwrap_err(), Refused::Unknown);
        assert!(threads.finished("b", &run("short"), None).is_ok());
    }

    #[test]
    fn a_thread_remembers_a_bounded_number_of_answered_ids() {
        let threads = Threads::new(10, 1 << 20, false);
        for i in 0..(super::MAX_ANSWERED + 5) {
            let id = format!("int_{i}");
            threads.finished("a", &run("x"), Some(&id)).unwrap();
            threads.take("a", &id).unwrap();
        }
        assert_eq!(threads.take("a", "int_0").unwrap_err(), Refused::Unknown);
        let last = format!("int_{}", super::MAX_ANSWERED + 4);
        assert_eq!(threads.take("a", &last).unwrap_err(), Refused::Answered);
    }
}
