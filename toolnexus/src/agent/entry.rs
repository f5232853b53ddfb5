//! The ways into the loop: a new prompt, a continued transcript, an incomplete run picked
//! up (what a [`RunRequest`](crate::agent::request::RunRequest) starts), a halted run
//! answered ([`Client::resume`]). Each goes through the client's store when it has one
//! (see `journal/`).

use crate::agent::client::Client;
use crate::agent::conversation::is_summary;
use crate::agent::drive::Opened;
use crate::agent::options::Env;
use crate::agent::options::ToolOptions;
use crate::agent::resume::{Halted, ResumeError, Resumed};
use crate::agent::run::RunResult;
use crate::agent::turn::ToolTurn;
use crate::agent::turn::{Played, halted_turn};
use crate::model::message::Message;
use crate::model::message::UserContent;
use crate::tool::kit::Toolkit;
use crate::tool::request::Answer;

impl Client {
    /// Runs the loop on a new transcript: the system prompt, then `prompt`.
    ///
    /// The system prompt is the client's [`system`](Client::system) and the toolkit's
    /// [`skills_prompt`](Toolkit::skills_prompt), separated by a blank line (either alone
    /// when the other is empty; no system message when both are).
    pub(crate) async fn run_prompt(&self, prompt: UserContent, toolkit: &Toolkit) -> RunResult {
        let mut transcript = Vec::with_capacity(2);
        if let Some(system) = self.system_with(toolkit.skills_prompt()) {
            transcript.push(Message::system(system));
        }
        transcript.push(Message::user(prompt));
        self.start(transcript, toolkit, None).await
    }

    /// Runs the loop on a prior transcript with a new user `prompt`. The system prompt is
    /// put first if the transcript has none (one that starts with a compaction's summary
    /// gets it too). If the transcript ends in a halted turn, the
    /// new prompt abandons it: each unfinished call gets an explicit error result
    /// (`unanswered: <prompt>`, or `not run: …`), so the transcript stays balanced.
    pub(crate) async fn run_continued(
        &self,
        transcript: Vec<Message>,
        prompt: UserContent,
        toolkit: &Toolkit,
    ) -> RunResult {
        let transcript = self.continued(transcript, prompt, toolkit.skills_prompt());
        self.start(transcript, toolkit, None).await
    }

    /// Runs the loop on `transcript` as it stands, adding no message: picks up a run
    /// that stopped [incomplete](crate::RunStatus::Incomplete) (cancelled, past its deadline, a
    /// model error, out of turns) where it stopped. If the transcript ends in a turn with
    /// unfinished calls, they are played first (calls not run are run, suspensions go to
    /// `wait_for`, or the run halts on them again). With a store, it is recorded as a new
    /// run.
    pub(crate) async fn run_transcript(
        &self,
        transcript: Vec<Message>,
        toolkit: &Toolkit,
    ) -> RunResult {
        let open = ToolTurn::open(&transcript)
            .filter(ToolTurn::is_open)
            .map(|turn| Opened {
                turn,
                answer: None,
                compacted: None,
            });
        self.start(transcript, toolkit, open).await
    }

    /// The work of [`Client::resume`]: the halted turn checked, then finished and the run
    /// driven on.
    pub(crate) async fn resume_now(
        &self,
        halted: impl Into<Halted>,
        answer: Answer,
        toolkit: &Toolkit,
    ) -> Result<RunResult, ResumeError> {
        let Halted {
            transcript,
            compacted,
            id,
        } = halted.into();
        let (turn, halted) = halted_turn(&transcript, &answer.id)?;
        if let Some(durable) = &self.store {
            let open = Opened {
                turn,
                answer: Some((halted, answer.clone())),
                compacted,
            };
            let resumed = self.resume_durable(durable, transcript, toolkit, open, answer);
            return Ok(Box::pin(resumed).await);
        }
        let open = Opened {
            turn,
            answer: Some((halted, answer)),
            compacted,
        };
        let mut run = self.drive(transcript, toolkit, Some(open)).await;
        run.id = id;
        // A run of a conversation kept in memory brings it up to date.
        if let Err(error) = Box::pin(self.remember_resumed(&run)).await {
            run.status = crate::agent::run::RunStatus::Incomplete {
                reason: crate::agent::run::StopReason::Store {
                    message: error.to_string(),
                },
            };
        }
        Ok(run)
    }

    /// `transcript` continued with the user's `prompt`: a halted turn at its end
    /// abandoned, the system prompt put first if it has none.
    pub(crate) fn continued(
        &self,
        mut transcript: Vec<Message>,
        prompt: impl Into<UserContent>,
        skills_prompt: &str,
    ) -> Vec<Message> {
        if let Some(mut turn) = ToolTurn::open(&transcript).filter(ToolTurn::is_open) {
            turn.abandon();
            turn.write(&mut transcript);
        }
        // A conversation kept compacted starts with its summary, not a system prompt.
        if let Some(system) = self.system_with(skills_prompt)
            && (!matches!(transcript.first(), Some(Message::System { .. }))
                || transcript.first().is_some_and(is_summary))
        {
            transcript.insert(0, Message::system(system));
        }
        transcript.push(Message::user(prompt));
        transcript
    }

    /// The system prompt of a new transcript: the client's and the toolkit's skills
    /// catalog, joined by a blank line (the toolnexus contract's rule).
    fn system_with(&self, skills_prompt: &str) -> Option<String> {
        match (
            self.system.as_deref().filter(|s| !s.is_empty()),
            skills_prompt,
        ) {
            (None, "") => None,
            (Some(system), "") => Some(system.to_owned()),
            (None, skills) => Some(skills.to_owned()),
            (Some(system), skills) => Some(format!("{system}\n\n{skills}")),
        }
    }

    /// Runs `transcript` (finishing `open` first): recorded in the store when the client
    /// has one, as a new run.
    async fn start(
        &self,
        transcript: Vec<Message>,
        toolkit: &Toolkit,
        open: Option<Opened>,
    ) -> RunResult {
        if let Some(durable) = &self.store {
            // Boxed: a run without a store does not carry the store's futures.
            return Box::pin(self.start_durable(durable, transcript, toolkit, open, None)).await;
        }
        self.drive(transcript, toolkit, open).await
    }
}

/// Finishes the turn a run halted on, in a new process if need be, from serialized data
/// alone: the halted run (or its transcript) and the answer to the request it waits on,
/// found by the answer's id.
///
/// The call parked on that request runs again with the answer in
/// [`Context::answer`](crate::Context::answer) (or gets `declined/expired: <prompt>` when
/// the answer declines); calls of the turn that never ran are run now. Every call then has
/// exactly one tool message, unless another call of the turn is still suspended: then
/// [`Resumed::pending`] holds its request, to answer and resume with in turn. No user
/// message is added.
///
/// This runs tools only; [`Client::resume`](crate::Client::resume) also lets the model
/// continue afterwards.
pub async fn resume(
    halted: impl Into<Halted>,
    answer: Answer,
    toolkit: &Toolkit,
) -> Result<Resumed, ResumeError> {
    let mut transcript = halted.into().transcript;
    let (mut turn, halted) = halted_turn(&transcript, &answer.id)?;
    let opts = ToolOptions::default();
    let env = Env {
        toolkit,
        opts: &opts,
        cancel: None,
        builtin: None,
        record: None,
    };
    turn.answer(halted, answer, &env).await;
    // Without `wait_for` nothing can fail: the turn settles or halts again.
    let pending = match turn.play(&env).await {
        Played::Settled => None,
        Played::Halted(request) | Played::Failed { request, .. } => Some(request),
    };
    turn.write(&mut transcript);
    Ok(Resumed {
        transcript,
        calls: turn.records().collect(),
        pending,
    })
}
