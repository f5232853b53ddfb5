//! What a task's runner is asked to do ([`Work`]), and an A2A message read as the answer
//! to the request a task waits on: the protocol turned into the loop's terms, for the
//! engine that decides and the driver that runs.

use serde_json::Value;

use crate::a2a::wire::A2aMessage;
use crate::a2a::wire::ANSWER_KEY;
use crate::agent::run::RunResult;
use crate::model::message::Message;
use crate::tool::request::{Answer, Request};

/// What a task's runner does.
pub(super) enum Work {
    /// A new run on `prompt`, continuing a conversation's transcript when there is one.
    Start {
        prompt: String,
        transcript: Option<Vec<Message>>,
    },
    /// The halted `run`, resumed with the answer to `request`.
    Resume {
        run: Box<RunResult>,
        request: Box<Request>,
        answer: Box<Answer>,
    },
}

/// Words that decline an approval.
const NO: [&str; 8] = [
    "no", "n", "deny", "denied", "decline", "declined", "reject", "cancel",
];

/// The answer a message gives to `request`: a toolnexus [`Answer`] in its metadata (for
/// this request), else its text (or its first data part). For an approval, a text that
/// says no declines.
pub(super) fn answer_for(request: &Request, message: &A2aMessage) -> Answer {
    let given = message
        .metadata
        .as_ref()
        .and_then(|meta| meta.get(ANSWER_KEY))
        .and_then(|value| serde_json::from_value::<Answer>(value.clone()).ok())
        .filter(|answer| answer.id == request.id);
    if let Some(answer) = given {
        return answer;
    }
    let text = message.text();
    let data = if text.is_empty() {
        message.parts.iter().find_map(|p| p.data.clone())
    } else {
        Some(Value::String(text.clone()))
    };
    if request.kind == "approval" {
        let word = text
            .trim()
            .trim_end_matches(['.', '!'])
            .split([':', ' ', ','])
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        if NO.contains(&word.as_str()) {
            return Answer::decline(&request.id, text);
        }
    }
    let answer = Answer::accept(&request.id);
    match data {
        Some(data) => answer.with_data(data),
        None => answer,
    }
}
