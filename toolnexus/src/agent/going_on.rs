//! A halted run going on with the answer to its request, finished as a
//! [`RunRequest`](crate::agent::RunRequest) is: awaited, [`stream`](ResumeRequest::stream)ed
//! or read [`typed`](ResumeRequest::typed). [`ResumeRequest`] resumes a halted run the
//! caller holds ([`Client::resume`]); [`AnswerRequest`] resumes the run in the client's
//! store that waits on the answer's request ([`Client::answer`]), whichever process
//! parked it.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use crate::agent::client::Client;
use crate::agent::journal::StoreError;
use crate::agent::resume::{Halted, ResumeError};
use crate::agent::run::{RunResult, RunStatus, StopReason};
use crate::agent::stream::EventStream;
use crate::agent::turn::halted_turn;
use crate::agent::typed::{Typed, TypedError};
use crate::tool::handler::BoxFuture;
use crate::tool::kit::Toolkit;
use crate::tool::request::Answer;

/// A halted run going on with the answer to its request ([`Client::resume`]): `.await`
/// it for the [`RunResult`] (or why the run could not be resumed),
/// [`stream`](ResumeRequest::stream) it for its events, or read a typed run's output with
/// [`typed`](ResumeRequest::typed).
///
/// It is a [`Future`]: nothing runs until it is awaited (or streamed, or read typed).
#[must_use = "a resume request does nothing until it is awaited, streamed or read typed"]
pub struct ResumeRequest<'c> {
    client: &'c Client,
    toolkit: &'c Toolkit,
    given: Option<(Halted, Answer)>,
    running: Option<BoxFuture<'c, Result<RunResult, ResumeError>>>,
}

impl std::fmt::Debug for ResumeRequest<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResumeRequest")
            .field("answer", &self.given.as_ref().map(|(_, answer)| &answer.id))
            .field("started", &self.given.is_none())
            .finish()
    }
}

impl Client {
    /// Continues a run that halted on a request (in this process, or in another one, from
    /// a serialized [`RunResult`]) with the `answer` to it: the request is the one of the
    /// answer's id. Finishes the halted turn as [`dispatch::resume`](crate::dispatch::resume)
    /// does (with this client's `wait_for`, timeouts, hooks, events and concurrency), then
    /// lets the model carry on. No user message is added; the model turn budget starts
    /// afresh.
    ///
    /// `halted` is the [`RunResult`] the run halted with (owned, borrowed, or read back
    /// from its JSON), or its transcript.
    ///
    /// If another call of the halted turn is still suspended (and there is no `wait_for`),
    /// the result is pending again, on that call's request.
    ///
    /// With a [store](Client::store), a request the store holds is answered there, as
    /// [`Client::answer`] does (the store's record of the run is the one resumed, and a
    /// store that refuses ends the run incomplete with its error); a run the store does
    /// not hold is recorded as a new run.
    ///
    /// Await it for the run, or why it could not be resumed: [`ResumeError::NotHalted`]
    /// when the transcript does not end in a turn of tool calls,
    /// [`ResumeError::UnknownRequest`] when no call of that turn waits on `answer.id`
    /// (both found before anything runs). See [`ResumeRequest`] for its other finishers.
    ///
    /// ```
    /// use toolnexus::{tool, Client, Context, Reply, RunResult, ScriptedModel, Suspend, Toolkit};
    ///
    /// /// Deploys the service; asks where.
    /// #[tool]
    /// fn deploy(ctx: &Context) -> Result<String, Suspend> {
    ///     match ctx.answer().and_then(|a| a.text()) {
    ///         Some(env) => Ok(format!("deployed to {env}")),
    ///         None => Err(Suspend::input("Which environment?")),
    ///     }
    /// }
    ///
    /// let toolkit = Toolkit::new().with(deploy::tool());
    /// let client = Client::new(ScriptedModel::new([
    ///     Reply::call("c1", "deploy", "{}"),
    ///     Reply::text("Deployed."),
    /// ]));
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// let halted = rt.block_on(client.run("Deploy the service", &toolkit));
    /// let saved = serde_json::to_string(&halted).unwrap();
    ///
    /// // Later, maybe in another process: the saved run, and the answer to its request.
    /// let halted: RunResult = serde_json::from_str(&saved).unwrap();
    /// let answer = halted.pending.as_ref().unwrap().answer("staging");
    /// let run = rt.block_on(client.resume(halted, answer, &toolkit)).unwrap();
    /// assert_eq!(run.tool_calls[0].result.output, "deployed to staging");
    /// assert_eq!(run.text, "Deployed.");
    /// ```
    pub fn resume<'c>(
        &'c self,
        halted: impl Into<Halted>,
        answer: Answer,
        toolkit: &'c Toolkit,
    ) -> ResumeRequest<'c> {
        ResumeRequest {
            client: self,
            toolkit,
            given: Some((halted.into(), answer)),
            running: None,
        }
    }
}

impl ResumeRequest<'_> {
    /// The resumed run as a stream of its events. The halted turn is checked at once: a
    /// transcript that is not halted on the answer's request is an error, and no stream.
    pub fn stream(self) -> Result<EventStream, ResumeError> {
        let Some((halted, answer)) = self.given else {
            return Ok(EventStream::new(self.client, None, |_| async {
                RunResult::started_twice()
            }));
        };
        halted_turn(&halted.transcript, &answer.id)?;
        let toolkit = self.toolkit.clone();
        Ok(EventStream::new(
            self.client,
            None,
            move |client| async move {
                let transcript = halted.transcript.clone();
                match client.resume_now(halted, answer, &toolkit).await {
                    Ok(run) => run,
                    // Checked above; should it fail after all, the run ends saying why.
                    Err(error) => {
                        let mut run = RunResult::empty(transcript);
                        run.status = RunStatus::Incomplete {
                            reason: StopReason::Hook {
                                message: error.to_string(),
                            },
                        };
                        run
                    }
                }
            },
        ))
    }

    /// A typed run that halted ([`Typed::value`] `None`) going on, with the same output
    /// checks, to its value (see [`RunRequest::typed`](crate::agent::RunRequest::typed)).
    pub async fn typed<T: DeserializeOwned + JsonSchema>(self) -> Result<Typed<T>, TypedError> {
        let Some((halted, answer)) = self.given else {
            return Typed::from_run(RunResult::started_twice());
        };
        let (client, toolkit) = self.client.typed::<T>(self.toolkit);
        let run = client
            .resume_now(halted, answer, &toolkit)
            .await
            .map_err(TypedError::Resume)?;
        Typed::from_run(run)
    }
}

/// Awaiting the request resumes the run, to its end, halt or stop.
impl Future for ResumeRequest<'_> {
    type Output = Result<RunResult, ResumeError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let (client, toolkit, given) = (this.client, this.toolkit, &mut this.given);
        this.running
            .get_or_insert_with(|| match given.take() {
                Some((halted, answer)) => Box::pin(client.resume_now(halted, answer, toolkit)),
                None => Box::pin(async { Ok(RunResult::started_twice()) }),
            })
            .as_mut()
            .poll(cx)
    }
}

/// An answer to a request a run in the client's store waits on ([`Client::answer`]):
/// `.await` it to record the answer and resume that run here, to its [`RunResult`];
/// [`stream`](AnswerRequest::stream) it for the resumed run's events. Name the run with
/// [`run`](AnswerRequest::run) when several wait on the same request id.
///
/// It is a [`Future`]: nothing is recorded until it is awaited (or streamed).
#[must_use = "an answer request does nothing until it is awaited or streamed"]
pub struct AnswerRequest<'c> {
    client: &'c Client,
    toolkit: &'c Toolkit,
    run: Option<String>,
    answer: Option<Answer>,
    running: Option<BoxFuture<'c, Result<RunResult, StoreError>>>,
}

impl std::fmt::Debug for AnswerRequest<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnswerRequest")
            .field("run", &self.run)
            .field("answer", &self.answer.as_ref().map(|answer| &answer.id))
            .field("started", &self.answer.is_none())
            .finish()
    }
}

impl Client {
    /// Answers a request a parked run waits on, and resumes that run here, whichever
    /// process parked it: the answer is recorded and the run's lease taken in one
    /// transaction, then the run goes on as [`Client::resume`] would and its end is
    /// recorded. A request past its `expires_at` is answered as expired instead (the tool
    /// does not run again; the model reads `declined/expired: <prompt>`). Await it for the
    /// run; see [`AnswerRequest`] for its other finishers.
    ///
    /// Errors: [`StoreError::NoStore`] without a store, [`StoreError::UnknownRequest`],
    /// [`StoreError::AlreadyAnswered`] (each request is answered once),
    /// [`StoreError::HeldByAnotherWorker`] (another worker is resuming the run),
    /// [`StoreError::AmbiguousRequest`] (several runs wait on that id:
    /// [`AnswerRequest::run`] names the run), and the store's own failures.
    pub fn answer<'c>(&'c self, answer: Answer, toolkit: &'c Toolkit) -> AnswerRequest<'c> {
        AnswerRequest {
            client: self,
            toolkit,
            run: None,
            answer: Some(answer),
            running: None,
        }
    }
}

impl AnswerRequest<'_> {
    /// The answer for the request `answer.id` of run `run_id` (the `run_id` a pending
    /// request is listed with). Runs that made the same call wait on the same request id
    /// (an approval's id is a digest of the call); this resumes the one named, whatever
    /// the others do. [`StoreError::UnknownRequest`] when that run has no such request.
    pub fn run(mut self, run_id: impl Into<String>) -> Self {
        self.run = Some(run_id.into());
        self
    }

    /// The resumed run as a stream of its events: the answer is recorded and the run's
    /// lease taken before this returns (so a request that is unknown, already answered
    /// or held elsewhere is an error here, and no stream); the stream then drives the run
    /// on from there (see [`EventStream`]).
    pub async fn stream(self) -> Result<EventStream, StoreError> {
        let Some(answer) = self.answer else {
            return Ok(EventStream::new(self.client, None, |_| async {
                RunResult::started_twice()
            }));
        };
        let (transcript, open, record) = self
            .client
            .take_answered(self.run.as_deref(), answer)
            .await?;
        let toolkit = self.toolkit.clone();
        let id = record.run_id.clone();
        Ok(EventStream::new(
            self.client,
            Some(id),
            move |client| async move {
                client
                    .drive_recorded(transcript, &toolkit, open, &record)
                    .await
            },
        ))
    }
}

/// Awaiting the request records the answer and resumes the run, to its end, halt or stop.
impl Future for AnswerRequest<'_> {
    type Output = Result<RunResult, StoreError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let (client, toolkit) = (this.client, this.toolkit);
        let (run, answer) = (&mut this.run, &mut this.answer);
        this.running
            .get_or_insert_with(|| match answer.take() {
                Some(answer) => {
                    let run = run.take();
                    Box::pin(async move {
                        let (transcript, open, record) =
                            client.take_answered(run.as_deref(), answer).await?;
                        Ok(client
                            .drive_recorded(transcript, toolkit, open, &record)
                            .await)
                    })
                }
                None => Box::pin(async { Ok(RunResult::started_twice()) }),
            })
            .as_mut()
            .poll(cx)
    }
}
