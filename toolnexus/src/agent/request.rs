//! [`RunRequest`]: one run asked of a [`Client`], finished by awaiting it (its
//! [`RunResult`]), by [`stream`](RunRequest::stream)ing its events, or by reading its
//! output [`typed`](RunRequest::typed).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use crate::agent::client::Client;
use crate::agent::run::{RunResult, RunStatus, StopReason};
use crate::agent::stream::EventStream;
use std::sync::Arc;

use crate::agent::typed::{OUTPUT_TOOL, OutputMode, OutputSpec, Typed, TypedError, native_fits};
use crate::model::message::{Message, UserContent};
use crate::model::settings::{ModelSettings, OutputFormat};
use crate::schema::output::OutputSchema;
use crate::tool::kit::Toolkit;

/// What a run starts from.
enum Start {
    /// A prompt, after a prior transcript when there is one.
    Prompt {
        history: Option<Vec<Message>>,
        prompt: UserContent,
    },
    /// A transcript as it stands.
    Transcript(Vec<Message>),
    /// A prompt continuing the conversation kept under an id.
    Conversation { id: String, prompt: UserContent },
    /// Moved into the run the request started when it was first polled.
    Started,
}

impl Start {
    async fn run(self, client: &Client, toolkit: &Toolkit) -> RunResult {
        match self {
            Start::Prompt {
                history: None,
                prompt,
            } => client.run_prompt(prompt, toolkit).await,
            Start::Prompt {
                history: Some(transcript),
                prompt,
            } => client.run_continued(transcript, prompt, toolkit).await,
            Start::Transcript(transcript) => client.run_transcript(transcript, toolkit).await,
            Start::Conversation { id, prompt } => match client.ask(&id, prompt, toolkit).await {
                Ok(run) => run,
                Err(error) => store_failed(&id, &error),
            },
            // Only a request polled by hand and then finished again gets here.
            Start::Started => RunResult::started_twice(),
        }
    }
}

/// One run asked of a [`Client`] ([`Client::run`], [`Client::run_from`]), and how it is
/// finished: `.await` it for its [`RunResult`], [`stream`](RunRequest::stream) it for its
/// events, or read its output as a type with [`typed`](RunRequest::typed). Before the
/// finisher, [`history`](RunRequest::history) puts a prior transcript before the prompt.
///
/// It is a [`Future`]: nothing runs until it is awaited (or streamed, or read typed), and a
/// request that is dropped starts nothing. A request runs once: its prompt and transcript
/// move into the run when it is first polled (no copy), so a request polled by hand and
/// then streamed or read typed gives an incomplete run saying so.
///
/// ```
/// use futures_util::StreamExt as _;
/// use toolnexus::{Client, Reply, ScriptedModel, Toolkit};
///
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// # rt.block_on(async {
/// let toolkit = Toolkit::new();
/// let client = Client::new(ScriptedModel::new([Reply::text("4."), Reply::text("5.")]));
/// let first = client.run("What is 2 + 2?", &toolkit).await;     // a RunResult
/// let events = client
///     .run("And 2 + 3?", &toolkit)
///     .history(first.messages)                                 // the conversation so far
///     .stream()                                                // its events, owned
///     .collect::<Vec<_>>()
///     .await;
/// assert_eq!(events.len(), 5); // started, turn started, text, turn finished, finished
/// # });
/// ```
#[must_use = "a run request does nothing until it is awaited, streamed or read typed"]
pub struct RunRequest<'c> {
    client: &'c Client,
    toolkit: &'c Toolkit,
    start: Start,
    /// The run, once the request is polled as a future.
    running: Option<Pin<Box<dyn Future<Output = RunResult> + Send + 'c>>>,
}

impl std::fmt::Debug for RunRequest<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let start = match &self.start {
            Start::Prompt { history: None, .. } => "prompt",
            Start::Prompt { .. } => "prompt after a transcript",
            Start::Transcript(_) => "transcript",
            Start::Conversation { .. } => "prompt in a conversation",
            Start::Started => "started",
        };
        f.debug_struct("RunRequest").field("start", &start).finish()
    }
}

impl Client {
    /// A run of `prompt` (text, or [parts](UserContent)) with `toolkit`, on a new
    /// transcript: the system prompt, then the prompt. Await it for the [`RunResult`];
    /// see [`RunRequest`] for its other finishers.
    ///
    /// The system prompt is the client's [`system`](Client::system) and the toolkit's
    /// [`skills_prompt`](Toolkit::skills_prompt), separated by a blank line (either alone
    /// when the other is empty; no system message when both are).
    pub fn run<'c>(
        &'c self,
        prompt: impl Into<UserContent>,
        toolkit: &'c Toolkit,
    ) -> RunRequest<'c> {
        RunRequest {
            client: self,
            toolkit,
            start: Start::Prompt {
                history: None,
                prompt: prompt.into(),
            },
            running: None,
        }
    }

    /// A run on `transcript` as it stands, adding no message: picks up a run that stopped
    /// [incomplete](crate::RunStatus::Incomplete) (cancelled, past its deadline, a model
    /// error, out of turns) where it stopped. If the transcript ends in a turn with
    /// unsettled calls, those run first (a suspended one goes through `wait_for`, or the
    /// run halts on it again). With a store, it is recorded as a new run.
    pub fn run_from<'c>(
        &'c self,
        transcript: Vec<Message>,
        toolkit: &'c Toolkit,
    ) -> RunRequest<'c> {
        RunRequest {
            client: self,
            toolkit,
            start: Start::Transcript(transcript),
            running: None,
        }
    }
}

impl<'c> RunRequest<'c> {
    /// Puts `transcript` (a prior run's [`messages`](RunResult::messages)) before the
    /// prompt: the run continues that conversation. The system prompt is put first if the
    /// transcript has none (one that starts with a compaction's summary gets it too). If
    /// the transcript ends in a halted turn, the new prompt abandons it: each unfinished
    /// call gets an explicit error result (`unanswered: <prompt>`, or `not run: …`), so
    /// the transcript stays balanced.
    ///
    /// On a request of [`Client::run_from`], `transcript` replaces the one it runs from.
    pub fn history(mut self, transcript: Vec<Message>) -> Self {
        self.start = match self.start {
            Start::Prompt { prompt, .. } => Start::Prompt {
                history: Some(transcript),
                prompt,
            },
            Start::Transcript(_) => Start::Transcript(transcript),
            Start::Conversation { prompt, .. } => Start::Prompt {
                history: Some(transcript),
                prompt,
            },
            Start::Started => Start::Started,
        };
        self
    }

    /// Runs the prompt in the conversation `id`, as [`Client::ask`] does: after the
    /// conversation's messages so far (in the client's
    /// [`ConversationStore`](crate::agent::ConversationStore), or with a
    /// [store](Client::store) the store's session `id`, any process continuing it),
    /// and the conversation then holds what the run added. A conversation that cannot be
    /// read or written ends the run [incomplete](RunStatus::Incomplete) with
    /// [`StopReason::Store`] saying why. Works with every finisher:
    /// `client.run(text, &toolkit).conversation(thread).stream()` is a chat endpoint.
    ///
    /// After [`history`](RunRequest::history) the conversation replaces the given
    /// transcript, and the reverse (the last call wins). A request of
    /// [`Client::run_from`] has no prompt to add: it runs its transcript as it stands.
    pub fn conversation(mut self, id: impl Into<String>) -> Self {
        self.start = match self.start {
            Start::Prompt { prompt, .. } | Start::Conversation { prompt, .. } => {
                Start::Conversation {
                    id: id.into(),
                    prompt,
                }
            }
            // A transcript has no prompt to add: it is run as it stands.
            other => other,
        };
        self
    }

    /// The run as a stream of its events ([`EventStream`]: owned, `'static`, driven by
    /// being read). See [`EventStream`] for what it carries and what dropping it does.
    ///
    /// With a [store](Client::store), the run's id is chosen now (unless
    /// [`run_id`](Client::run_id) set one), and is [`EventStream::run_id`] and the first
    /// event's.
    pub fn stream(self) -> EventStream {
        if let Start::Conversation { id, prompt } = self.start {
            return conversation_stream(self.client, id, prompt, self.toolkit.clone());
        }
        let (client, run_id) = self.client.with_run_id();
        let (start, toolkit) = (self.start, self.toolkit.clone());
        EventStream::new(&client, run_id, move |client| async move {
            start.run(&client, &toolkit).await
        })
    }

    /// Runs `prompt` to a typed output: the model's final answer must be a `T`, read
    /// from JSON that follows `T`'s schema.
    ///
    /// Where the model has structured output of its own
    /// ([`ModelInfo::native_output`](crate::model::ModelInfo::native_output): OpenAI's `response_format`
    /// and Responses' `text.format`, strict when the schema allows; Anthropic's
    /// `output_config.format`; Gemini's `responseSchema`) the final answer is asked for in
    /// that form. Elsewhere (Bedrock, your own models) the run lists one more tool,
    /// [`OUTPUT_TOOL`](crate::agent::OUTPUT_TOOL), whose arguments are the answer, and ends when the model calls it
    /// (see [`output_mode`](Client::output_mode)). Either way the model may run the
    /// toolkit's tools first.
    ///
    /// Output that does not parse, or does not read as a `T` (serde's error names the
    /// field), goes back to the model with what is wrong, at most
    /// [`output_retries`](Client::output_retries) times; after that the result is
    /// [`TypedError::InvalidOutput`], with the run and the last output. A run that halts
    /// on a suspension is not an error: [`Typed::value`] is `None`, and
    /// [`Client::resume`]'s [`typed`](crate::agent::ResumeRequest::typed) gives the value once
    /// it is answered. The
    /// run's [`text`](RunResult::text) is the output's JSON.
    ///
    /// ```
    /// use toolnexus::{Client, Reply, ScriptedModel, Toolkit};
    ///
    /// #[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
    /// struct Verdict { approve: bool, reason: String }
    ///
    /// let model = ScriptedModel::new([
    ///     Reply::call("c1", "final_result", r#"{"approve": "yes"}"#),
    ///     Reply::call("c2", "final_result", r#"{"approve": true, "reason": "tests pass"}"#),
    /// ]);
    /// let client = Client::new(model).output_retries(2);
    /// # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    /// let typed = rt.block_on(client.run("Review PR 7", &Toolkit::new()).typed::<Verdict>()).unwrap();
    /// let verdict = typed.value.unwrap();
    /// assert!(verdict.approve);
    /// assert!(typed.run.tool_calls[0].result.output.contains("approve"));
    /// ```
    pub async fn typed<T: DeserializeOwned + JsonSchema>(self) -> Result<Typed<T>, TypedError> {
        let (client, toolkit) = self.client.typed::<T>(self.toolkit);
        Typed::from_run(self.start.run(&client, &toolkit).await)
    }
}

/// The stream of a prompt in conversation `id`. With a store the run is a run of the
/// session `id`, its id chosen now (the stream's [`run_id`](EventStream::run_id)) and
/// recorded when the stream is first read.
fn conversation_stream(
    client: &Client,
    id: String,
    prompt: UserContent,
    toolkit: Toolkit,
) -> EventStream {
    if client.store.is_some() {
        let run_id = client.session(id.clone()).new_run_id();
        return EventStream::new(client, Some(run_id.clone()), move |client| async move {
            let session = client.session(id.clone());
            match session
                .open_as(prompt, toolkit.skills_prompt(), run_id)
                .await
            {
                Ok((transcript, record)) => {
                    client
                        .drive_recorded(transcript, &toolkit, None, &record)
                        .await
                }
                Err(error) => store_failed(&id, &error),
            }
        });
    }
    EventStream::new(client, None, move |client| async move {
        Start::Conversation { id, prompt }
            .run(&client, &toolkit)
            .await
    })
}

/// The run a conversation that could not be read or written ends as.
fn store_failed(id: &str, error: &crate::agent::journal::StoreError) -> RunResult {
    let mut run = RunResult::empty(Vec::new());
    run.status = RunStatus::Incomplete {
        reason: StopReason::Store {
            message: format!("conversation `{id}`: {error}"),
        },
    };
    run
}

/// Awaiting a request runs the loop to the run's end, halt or stop (as does
/// `block_on`, or any executor that takes a [`Future`]).
impl Future for RunRequest<'_> {
    type Output = RunResult;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<RunResult> {
        let this = self.get_mut();
        let (client, toolkit) = (this.client, this.toolkit);
        let start = &mut this.start;
        this.running
            .get_or_insert_with(|| {
                let start = std::mem::replace(start, Start::Started);
                Box::pin(async move { start.run(client, toolkit).await })
            })
            .as_mut()
            .poll(cx)
    }
}

impl Client {
    /// This client and toolkit set up for a typed run of `T`.
    pub(crate) fn typed<T: DeserializeOwned + JsonSchema>(
        &self,
        toolkit: &Toolkit,
    ) -> (Client, Toolkit) {
        let schema = OutputSchema::new(crate::schema::canonical::schema_for::<T>());
        let tool = match self.options.mode {
            OutputMode::Auto => {
                let info = self.model.describe();
                !(info.native_output && native_fits(info.provider, &schema.schema))
            }
            OutputMode::Native => false,
            OutputMode::Tool => true,
        };
        let spec = Arc::new(OutputSpec::new::<T>(schema, tool));
        let mut client = self.clone();
        let mut toolkit = toolkit.clone();
        if tool {
            toolkit.extend([spec.output_tool()]);
            #[cfg(feature = "search")]
            if let Some(search) = &mut client.search {
                search.visible.push(OUTPUT_TOOL.to_owned());
            }
        } else {
            let format = OutputFormat::json_schema(OUTPUT_TOOL, spec.schema.schema.clone());
            client = client.settings(ModelSettings::new().output(format));
        }
        client.options.output = Some(spec);
        (client, toolkit)
    }
}

#[cfg(test)]
mod tests {
    use std::future::Future as _;
    use std::pin::Pin;
    use std::task::{Context, Poll, Waker};

    use futures_util::StreamExt as _;

    use crate::agent::client::Client;
    use crate::agent::events::Event;
    use crate::agent::run::RunStatus;
    use crate::model::{Reply, ScriptedModel};
    use crate::tool::kit::Toolkit;

    #[tokio::test]
    async fn a_request_polled_once_moves_its_start_into_the_run_and_runs_once() {
        let client = Client::new(ScriptedModel::new([Reply::text("one"), Reply::text("two")]));
        let toolkit = Toolkit::new();
        let mut request = client.run("go", &toolkit);
        let mut cx = Context::from_waker(Waker::noop());
        // The scripted model answers at once: the first poll finishes the run.
        let Poll::Ready(run) = Pin::new(&mut request).poll(&mut cx) else {
            panic!("a scripted run finishes in one poll");
        };
        assert_eq!(run.text, "one");
        // Finished another way, it says so rather than running without its prompt.
        let events: Vec<_> = request.stream().collect().await;
        let Some(Event::RunFinished { run }) = events.last() else {
            panic!("no end: {events:?}");
        };
        let RunStatus::Incomplete { reason } = &run.status else {
            panic!("{run:?}");
        };
        assert!(reason.to_string().contains("already started"), "{reason}");
        assert!(run.messages.is_empty(), "the model was not asked: {run:?}");
    }
}
