//! `question` (a §10 suspension of kind `question`) and `todowrite`.

use std::fmt::Write as _;

use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};

use super::env::{Args, fail};
use super::pyjson;
use crate::tool::approval::canonical_json;
use crate::tool::context::Context;
use crate::tool::request::Request;
use crate::tool::result::ToolResult;

/// The prompt of a question request, byte-identical across the ports: each question's
/// text in order, `" (options: a, b, c)"` after one with options, joined by `"\n"`.
/// `header` is not shown; it stays in the request's `data.questions`.
pub(super) fn render_prompt(questions: &[Value]) -> Result<String, String> {
    let mut lines = Vec::with_capacity(questions.len());
    for (index, question) in questions.iter().enumerate() {
        let mut line = question
            .get("question")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        if let Some(Value::Array(options)) = question.get("options")
            && !options.is_empty()
        {
            let mut names = Vec::with_capacity(options.len());
            for option in options {
                match option.as_str() {
                    Some(name) => names.push(name),
                    None => return Err(format!("questions[{index}].options must hold strings")),
                }
            }
            line.push_str(&format!(" (options: {})", names.join(", ")));
        }
        lines.push(line);
    }
    Ok(lines.join("\n"))
}

/// The id of the request a call of `question` makes: derived from the questions and the
/// call id, so the re-execution knows the answer to that very request.
fn request_id(questions: &Value, call_id: Option<&str>) -> String {
    let mut hasher = Sha256::new();
    hasher.update(b"toolnexus/question/v1\0");
    hasher.update(canonical_json(questions).as_bytes());
    hasher.update([0]);
    hasher.update(call_id.unwrap_or_default().as_bytes());
    let digest = hasher.finalize();
    let mut id = String::from("question-");
    for byte in &digest[..16] {
        let _ = write!(id, "{byte:02x}");
    }
    id
}

pub(super) fn question(value: &Value, ctx: &Context) -> ToolResult {
    let questions = match value.get("questions") {
        Some(Value::Array(questions)) => questions.clone(),
        _ => Vec::new(),
    };
    let questions = Value::Array(questions);
    let id = request_id(&questions, ctx.call_id());
    if let Some(answer) = ctx.answer().filter(|answer| answer.id == id) {
        if !answer.ok {
            let why = answer.reason.as_deref().unwrap_or("declined");
            return fail(
                "question",
                format!("the questions were not answered ({why})"),
            );
        }
        // The resolution is the answer, forwarded as the Python port writes it.
        let data = answer.data.clone().unwrap_or_else(|| json!({}));
        return ToolResult::ok(pyjson::dumps(&data));
    }
    let prompt = match render_prompt(questions.as_array().map_or(&[][..], Vec::as_slice)) {
        Ok(prompt) => prompt,
        Err(error) => return fail("question", error),
    };
    ToolResult::pending(
        Request::question(prompt)
            .with_id(id)
            .with_data(json!({ "questions": questions })),
    )
}

/// Python's truthiness of a JSON value.
fn truthy(value: Option<&Value>) -> bool {
    match value {
        None | Some(Value::Null) | Some(Value::Bool(false)) => false,
        Some(Value::Number(n)) => n.as_f64() != Some(0.0),
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(a)) => !a.is_empty(),
        Some(Value::Object(o)) => !o.is_empty(),
        Some(Value::Bool(true)) => true,
    }
}

pub(super) fn todowrite(value: &Value) -> ToolResult {
    let args = Args::new("todowrite", value);
    let todos = match args.get("todos") {
        Some(Value::Array(todos)) => todos.clone(),
        _ => Vec::new(),
    };
    let mut lines = Vec::with_capacity(todos.len());
    for (index, todo) in todos.iter().enumerate() {
        let Value::Object(todo) = todo else {
            return args.fail(format!("todos[{index}] must be an object"));
        };
        let mark = if truthy(todo.get("completed")) {
            'x'
        } else {
            ' '
        };
        let text = match todo.get("text") {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(text)) => text.clone(),
            Some(Value::Bool(true)) => "True".to_owned(),
            Some(Value::Bool(false)) => "False".to_owned(),
            Some(other) => other.to_string(),
        };
        lines.push(format!("[{mark}] {text}"));
    }
    let rendered = if lines.is_empty() {
        "(no todos)".to_owned()
    } else {
        lines.join("\n")
    };
    ToolResult::ok(rendered).with_metadata("todos", Value::Array(todos))
}
