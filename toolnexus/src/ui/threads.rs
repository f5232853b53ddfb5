//! What a UI endpoint keeps between the runs of a thread: its transcript, and the
//! interrupts it handed out, each bound to its thread and answerable once.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Mutex, PoisonError};

use crate::agent::message::Message;
use crate::agent::run::RunResult;

/// How many threads are kept; past it the oldest is forgotten (its interrupts with it).
const MAX_THREADS: usize = 10_000;

/// A run halted on a request, waiting for the interrupt that names it to be answered.
#[derive(Debug, Clone)]
pub(crate) struct Parked {
    /// The thread the interrupt was issued on.
    pub(crate) thread: String,
    /// The run as it halted (its pending request included).
    pub(crate) halted: RunResult,
}

/// Why a `resume` entry is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    /// No interrupt has this id.
    Unknown,
    /// The interrupt was answered already.
    Answered,
    /// The interrupt belongs to another thread.
    OtherThread,
}

impl Refused {
    pub(crate) fn code(self) -> &'static str {
        match self {
            Refused::Unknown => "unknown_interrupt",
            Refused::Answered => "interrupt_already_answered",
            Refused::OtherThread => "interrupt_of_another_thread",
        }
    }

    pub(crate) fn message(self, id: &str) -> String {
        match self {
            Refused::Unknown => format!("resume: no interrupt has the id {id:?}"),
            Refused::Answered => format!("resume: interrupt {id:?} was answered already"),
            Refused::OtherThread => {
                format!("resume: interrupt {id:?} was issued on another thread")
            }
        }
    }
}

#[derive(Default)]
struct State {
    /// Each thread's transcript after its last run.
    transcripts: HashMap<String, Vec<Message>>,
    /// Threads, oldest first, for forgetting.
    order: VecDeque<String>,
    /// Open interrupts by id.
    open: HashMap<String, Parked>,
    /// Answered interrupts, by id, with their thread.
    answered: HashSet<(String, String)>,
}

/// The threads of one endpoint.
#[derive(Default)]
pub(crate) struct Threads(Mutex<State>);

impl Threads {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The thread's transcript so far (empty for a new thread).
    pub(crate) fn transcript(&self, thread: &str) -> Vec<Message> {
        self.lock()
            .transcripts
            .get(thread)
            .cloned()
            .unwrap_or_default()
    }

    /// The ids of the thread's interrupts still waiting for an answer.
    pub(crate) fn open_on(&self, thread: &str) -> Vec<String> {
        self.lock()
            .open
            .iter()
            .filter(|(_, parked)| parked.thread == thread)
            .map(|(id, _)| id.clone())
            .collect()
    }

    /// Takes interrupt `id` to answer it on `thread`: once only, and only there.
    pub(crate) fn take(&self, thread: &str, id: &str) -> Result<Parked, Refused> {
        let mut state = self.lock();
        match state.open.get(id) {
            Some(parked) if parked.thread != thread => Err(Refused::OtherThread),
            Some(_) => {
                let parked = state.open.remove(id).ok_or(Refused::Unknown)?;
                state.answered.insert((id.to_owned(), thread.to_owned()));
                Ok(parked)
            }
            None if state.answered.contains(&(id.to_owned(), thread.to_owned())) => {
                Err(Refused::Answered)
            }
            None if state.answered.iter().any(|(answered, _)| answered == id) => {
                Err(Refused::OtherThread)
            }
            None => Err(Refused::Unknown),
        }
    }

    /// Records the end of a run of `thread`: its transcript, and the interrupt `id` when
    /// the run halted.
    pub(crate) fn finished(&self, thread: &str, run: &RunResult, interrupt: Option<&str>) {
        let mut state = self.lock();
        if !state.transcripts.contains_key(thread) {
            state.order.push_back(thread.to_owned());
            while state.order.len() > MAX_THREADS {
                if let Some(old) = state.order.pop_front() {
                    state.transcripts.remove(&old);
                    state.open.retain(|_, parked| parked.thread != old);
                    state.answered.retain(|(_, t)| *t != old);
                }
            }
        }
        state
            .transcripts
            .insert(thread.to_owned(), run.transcript.clone());
        if let Some(id) = interrupt {
            state.open.insert(
                id.to_owned(),
                Parked {
                    thread: thread.to_owned(),
                    halted: run.clone(),
                },
            );
        }
    }
}
