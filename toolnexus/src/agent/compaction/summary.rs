//! The summaries: the model-free digest ([`Compaction::new`](super::Compaction::new)'s
//! default) and a model's.

use std::fmt::Write as _;

use crate::model::message::Message;
use crate::model::request::ModelRequest;
use crate::model::{Model, ModelError, Usage};
use crate::tool::kit::Toolkit;

/// The longest digest, in characters.
const DIGEST_CHARS: usize = 2_000;
/// The longest quote of one message in the digest, in characters.
const QUOTE_CHARS: usize = 200;
/// The longest rendering of one message shown to a summarizing model, in characters.
const SHOWN_CHARS: usize = 8_000;

/// What a summarizing model is told.
const INSTRUCTIONS: &str = "You summarize the earlier part of a conversation between a user, \
     an assistant and its tools, for the assistant to continue from. Keep the user's goals \
     and requests, decisions made, facts and figures the tools returned that still matter, \
     and what is still to do. Write only the summary, as plain text.";

/// `text`, cut to `max` characters (an ellipsis marks the cut).
/// A user message as text: its text, then a summary of each other part in brackets.
fn user_text(content: &crate::model::message::UserContent) -> String {
    let mut text = content.text().into_owned();
    for part in content.parts().iter().filter(|p| p.as_text().is_none()) {
        text.push_str(&format!(" [{}]", part.summary()));
    }
    text
}

fn quote(text: &str, max: usize) -> String {
    let text = text.trim();
    match text.char_indices().nth(max) {
        None => text.to_owned(),
        Some((at, _)) => format!("{}…", &text[..at]),
    }
}

/// The model-free digest of `older`: how many messages, the user turns and answers
/// (shortened), an earlier summary's text, and which tools were called how often;
/// within [`DIGEST_CHARS`].
pub(crate) fn digest(older: &[Message]) -> String {
    let mut lines = vec![format!("{} earlier messages.", older.len())];
    let mut tools: Vec<(&str, usize)> = Vec::new();
    for message in older {
        match message {
            Message::System { content } => {
                let earlier = content
                    .strip_prefix(super::SUMMARY_PREFIX)
                    .unwrap_or(content);
                lines.push(format!("Earlier: {}", quote(earlier, QUOTE_CHARS * 2)));
            }
            Message::User { content } => {
                lines.push(format!("User: {}", quote(&user_text(content), QUOTE_CHARS)))
            }
            Message::Assistant {
                content,
                tool_calls,
                ..
            } => {
                if let Some(text) = content.as_deref().filter(|t| !t.trim().is_empty()) {
                    lines.push(format!("Assistant: {}", quote(text, QUOTE_CHARS)));
                }
                for call in tool_calls {
                    match tools.iter_mut().find(|(name, _)| *name == call.name) {
                        Some((_, n)) => *n += 1,
                        None => tools.push((&call.name, 1)),
                    }
                }
            }
            Message::Tool { .. } => {}
        }
    }
    if !tools.is_empty() {
        let called: Vec<String> = tools
            .iter()
            .map(|(name, n)| format!("{name} ×{n}"))
            .collect();
        lines.push(format!("Tools called: {}.", called.join(", ")));
    }
    // The most recent lines matter most: drop from the front (after the count) to fit.
    let mut out = lines[0].clone();
    let mut kept: Vec<&String> = Vec::new();
    let mut size = out.chars().count();
    for line in lines[1..].iter().rev() {
        let len = line.chars().count() + 1;
        if size + len > DIGEST_CHARS {
            break;
        }
        size += len;
        kept.push(line);
    }
    for line in kept.into_iter().rev() {
        out.push('\n');
        out.push_str(line);
    }
    out
}

/// `older` as text for a summarizing model: one block per message.
fn render(older: &[Message]) -> String {
    let mut out = String::new();
    for message in older {
        match message {
            Message::System { content } => {
                let _ = writeln!(out, "[system] {}", quote(content, SHOWN_CHARS));
            }
            Message::User { content } => {
                let _ = writeln!(out, "[user] {}", quote(&user_text(content), SHOWN_CHARS));
            }
            Message::Assistant {
                content,
                tool_calls,
                ..
            } => {
                if let Some(text) = content.as_deref().filter(|t| !t.trim().is_empty()) {
                    let _ = writeln!(out, "[assistant] {}", quote(text, SHOWN_CHARS));
                }
                for call in tool_calls {
                    let _ = writeln!(
                        out,
                        "[assistant calls {}] {}",
                        call.name,
                        quote(&call.arguments, SHOWN_CHARS)
                    );
                }
            }
            Message::Tool {
                content, is_error, ..
            } => {
                let kind = if *is_error {
                    "tool error"
                } else {
                    "tool result"
                };
                let _ = writeln!(out, "[{kind}] {}", quote(content, SHOWN_CHARS));
            }
        }
    }
    out
}

/// The summary `model` writes of `older`, and its usage.
pub(crate) async fn by_model(
    model: &dyn Model,
    older: &[Message],
) -> Result<(String, Usage), ModelError> {
    let asked = [
        Message::system(INSTRUCTIONS),
        Message::user(format!("Summarize this conversation:\n\n{}", render(older))),
    ];
    let toolkit = Toolkit::new();
    let reply = model
        .complete(ModelRequest::new(&asked, &toolkit))
        .await
        .map_err(|error| ModelError::with_source("the summarizing model failed", error))?;
    let text = reply.content.unwrap_or_default();
    if text.trim().is_empty() {
        return Err(ModelError::new(
            "the summarizing model gave no text (a tool call, or an empty turn)",
        ));
    }
    Ok((text, reply.usage))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::message::ToolCall;

    #[test]
    fn the_digest_is_bounded_and_keeps_the_latest() {
        let mut older = vec![Message::user("the task: count the rows")];
        for i in 0..500 {
            older.push(Message::tool_calls(
                None,
                vec![ToolCall::new(format!("c{i}"), "lookup", "{}")],
            ));
            older.push(Message::tool_result(
                format!("c{i}"),
                &crate::ToolResult::ok("x".repeat(100)),
            ));
            older.push(Message::assistant(format!("answer {i}")));
        }
        let digest = digest(&older);
        assert!(digest.chars().count() <= DIGEST_CHARS, "{digest}");
        assert!(digest.starts_with("1501 earlier messages."));
        assert!(digest.ends_with("Tools called: lookup ×500."), "{digest}");
        assert!(digest.contains("Assistant: answer 499"));
    }
}
