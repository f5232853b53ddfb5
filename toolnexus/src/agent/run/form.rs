//! The JSON form of [`RunResult`] and [`CallRecord`]: the contract's shapes, and the
//! shapes earlier builds wrote, which still load.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use super::{CallRecord, CallStatus, RunResult, RunStatus, StopReason, args_value};
use crate::agent::compaction::Compacted;
use crate::model::Usage;
use crate::model::message::{Message, ToolCall};
use crate::tool::content::ContentPart;
use crate::tool::request::{Answer, Request};
use crate::tool::result::ToolResult;

#[derive(Serialize)]
struct RunRef<'a> {
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    limit: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a StopReason>,
    text: &'a str,
    messages: &'a [Message],
    tool_calls: &'a [CallRecord],
    tool_call_count: usize,
    turns: u32,
    usage: &'a Usage,
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pending: Option<&'a Request>,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    compacted: Option<&'a Compacted>,
}

impl Serialize for RunResult {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let reason = match &self.status {
            RunStatus::Incomplete { reason } => Some(reason),
            _ => None,
        };
        RunRef {
            status: self.status.as_str(),
            limit: reason.map(StopReason::limit),
            reason,
            text: &self.text,
            messages: &self.messages,
            tool_calls: &self.tool_calls,
            tool_call_count: self.tool_calls.len(),
            turns: self.turns,
            usage: &self.usage,
            model: self.model.as_deref(),
            pending: self.pending.as_ref(),
            id: self.id.as_deref(),
            compacted: self.compacted.as_ref(),
        }
        .serialize(serializer)
    }
}

/// `status` as the contract writes it (a string) or as earlier builds did (an object).
#[derive(Deserialize)]
#[serde(untagged)]
enum StatusForm {
    Name(String),
    Object(RunStatus),
}

#[derive(Deserialize)]
struct RunOwned {
    status: StatusForm,
    #[serde(default)]
    limit: Option<String>,
    #[serde(default)]
    reason: Option<StopReason>,
    #[serde(default)]
    text: String,
    #[serde(alias = "transcript")]
    messages: Vec<Message>,
    #[serde(default, alias = "calls")]
    tool_calls: Vec<CallRecord>,
    #[serde(default)]
    turns: u32,
    #[serde(default)]
    usage: Usage,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    pending: Option<Request>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    compacted: Option<Compacted>,
}

impl<'de> Deserialize<'de> for RunResult {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let run = RunOwned::deserialize(deserializer)?;
        let status = match run.status {
            StatusForm::Object(status) => status,
            StatusForm::Name(name) => match name.as_str() {
                "done" => RunStatus::Done,
                "pending" => RunStatus::Pending,
                "incomplete" => RunStatus::Incomplete {
                    reason: match (run.reason, run.limit) {
                        (Some(reason), _) => reason,
                        (None, Some(limit)) if limit == "maxTurns" => {
                            StopReason::MaxTurns { limit: run.turns }
                        }
                        (None, Some(limit)) => StopReason::Named { limit },
                        (None, None) => {
                            return Err(D::Error::custom(
                                "RunResult: status \"incomplete\" needs a `limit` or a `reason`",
                            ));
                        }
                    },
                },
                other => {
                    return Err(D::Error::custom(format!(
                        "RunResult: unknown status `{other}` (expected \"done\", \"pending\" \
                         or \"incomplete\")"
                    )));
                }
            },
        };
        Ok(RunResult {
            status,
            text: run.text,
            messages: run.messages,
            tool_calls: run.tool_calls,
            turns: run.turns,
            usage: run.usage,
            pending: run.pending,
            id: run.id,
            compacted: run.compacted,
            model: run.model.filter(|m| !m.is_empty()),
        })
    }
}

#[derive(Serialize)]
struct CallRef<'a> {
    id: &'a str,
    name: &'a str,
    args: Value,
    output: &'a str,
    is_error: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<&'a Map<String, Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    parts: Option<&'a [ContentPart]>,
    turn: u32,
    status: CallStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    request: Option<&'a Request>,
    #[serde(skip_serializing_if = "Option::is_none")]
    answer: Option<&'a Answer>,
}

impl Serialize for CallRecord {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        CallRef {
            id: &self.call.id,
            name: &self.call.name,
            args: args_value(&self.call.arguments),
            output: &self.result.output,
            is_error: self.result.is_error,
            metadata: self.result.metadata.as_ref(),
            parts: self.result.parts.as_deref(),
            turn: self.turn,
            status: self.status,
            request: self.request.as_ref(),
            answer: self.answer.as_ref(),
        }
        .serialize(serializer)
    }
}

#[derive(Deserialize)]
struct CallOwned {
    // The form earlier builds wrote.
    #[serde(default)]
    call: Option<ToolCall>,
    #[serde(default)]
    result: Option<ToolResult>,
    // The contract's form.
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    args: Option<Value>,
    #[serde(default)]
    output: Option<String>,
    #[serde(default, alias = "isError")]
    is_error: bool,
    #[serde(default)]
    metadata: Option<Map<String, Value>>,
    #[serde(default)]
    parts: Option<Vec<ContentPart>>,
    // Both.
    #[serde(default)]
    turn: u32,
    #[serde(default)]
    status: Option<CallStatus>,
    #[serde(default)]
    request: Option<Request>,
    #[serde(default)]
    answer: Option<Answer>,
}

impl<'de> Deserialize<'de> for CallRecord {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let c = CallOwned::deserialize(deserializer)?;
        let call = match (c.call, c.name) {
            (Some(call), _) => call,
            (None, Some(name)) => ToolCall {
                id: c.id.unwrap_or_default(),
                name,
                arguments: match c.args {
                    Some(Value::String(text)) => text,
                    Some(value) => value.to_string(),
                    None => "{}".to_owned(),
                },
            },
            (None, None) => {
                return Err(D::Error::custom(
                    "tool call record: needs `name` (or the older `call`)",
                ));
            }
        };
        let result = c.result.unwrap_or(ToolResult {
            output: c.output.unwrap_or_default(),
            is_error: c.is_error,
            parts: c.parts,
            metadata: c.metadata,
        });
        let status = c.status.unwrap_or(if result.is_error {
            CallStatus::Error
        } else {
            CallStatus::Ok
        });
        Ok(CallRecord {
            turn: c.turn,
            call,
            result,
            status,
            request: c.request,
            answer: c.answer,
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// A halted run as earlier builds wrote it: `transcript`, `calls` with the nested
    /// call and result, and the object-shaped status.
    fn earlier_pending() -> Value {
        json!({
            "status": {"state": "pending"},
            "text": "Approve the refund?",
            "transcript": [
                {"role": "user", "content": "refund order 7"},
                {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function",
                    "function": {"name": "refund", "arguments": "{\"order\":7}"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "Approve the refund?",
                 "pending": {"id": "r1", "kind": "approval", "prompt": "Approve the refund?"}}
            ],
            "calls": [{
                "turn": 1,
                "call": {"id": "c1", "type": "function",
                    "function": {"name": "refund", "arguments": "{\"order\":7}"}},
                "result": {"output": "Approve the refund?", "isError": false,
                    "metadata": {"pending": {"id": "r1", "kind": "approval",
                        "prompt": "Approve the refund?"}}},
                "status": "pending",
                "request": {"id": "r1", "kind": "approval", "prompt": "Approve the refund?"}
            }],
            "turns": 1,
            "usage": {"prompt_tokens": 12, "completion_tokens": 3},
            "pending": {"id": "r1", "kind": "approval", "prompt": "Approve the refund?"}
        })
    }

    #[test]
    fn a_run_written_by_an_earlier_build_loads_and_writes_the_contract_form() {
        let run: RunResult = serde_json::from_value(earlier_pending()).unwrap();
        assert_eq!(run.status, RunStatus::Pending);
        assert_eq!(run.messages.len(), 3);
        assert_eq!(run.tool_calls[0].call.arguments, r#"{"order":7}"#);
        assert_eq!(run.tool_calls[0].status, CallStatus::Pending);
        assert_eq!(run.tool_calls[0].request.as_ref().unwrap().id, "r1");

        let json = serde_json::to_value(&run).unwrap();
        assert_eq!(json["status"], "pending");
        assert_eq!(json.get("limit"), None);
        assert_eq!(json["tool_call_count"], 1);
        assert_eq!(json["usage"]["total_tokens"], 15);
        assert_eq!(json["messages"][0]["content"], "refund order 7");
        assert_eq!(
            json["tool_calls"][0],
            json!({"id": "c1", "name": "refund", "args": {"order": 7},
                   "output": "Approve the refund?", "is_error": false,
                   "metadata": {"pending": {"id": "r1", "kind": "approval",
                       "prompt": "Approve the refund?"}},
                   "turn": 1, "status": "pending",
                   "request": {"id": "r1", "kind": "approval", "prompt": "Approve the refund?"}})
        );
        let back: RunResult = serde_json::from_value(json).unwrap();
        assert_eq!(back, run);
    }

    #[test]
    fn an_incomplete_run_names_its_limit_and_keeps_its_reason() {
        let mut old = earlier_pending();
        old["status"] = json!({"state": "incomplete", "reason": {"kind": "max_turns", "limit": 4}});
        let run: RunResult = serde_json::from_value(old).unwrap();
        let reason = StopReason::MaxTurns { limit: 4 };
        assert_eq!(
            run.status,
            RunStatus::Incomplete {
                reason: reason.clone()
            }
        );
        assert_eq!(run.limit(), Some("maxTurns"));

        let json = serde_json::to_value(&run).unwrap();
        assert_eq!(json["status"], "incomplete");
        assert_eq!(json["limit"], "maxTurns");
        assert_eq!(json["reason"], json!({"kind": "max_turns", "limit": 4}));
        assert_eq!(serde_json::from_value::<RunResult>(json).unwrap(), run);
    }

    #[test]
    fn a_python_port_result_loads() {
        // `dataclasses.asdict` of the Python port's RunResult: nulls for what is absent,
        // `limit` with no `reason`.
        let python = json!({
            "text": "", "messages": [{"role": "user", "content": "go"}],
            "tool_calls": [{"name": "add", "args": {"a": 1}, "output": "2",
                            "is_error": false, "metadata": null}],
            "tool_call_count": 1, "turns": 2,
            "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7},
            "model": "m", "status": "incomplete", "limit": "maxTurns", "pending": null
        });
        let run: RunResult = serde_json::from_value(python).unwrap();
        assert_eq!(
            run.status,
            RunStatus::Incomplete {
                reason: StopReason::MaxTurns { limit: 2 }
            }
        );
        assert_eq!(run.tool_calls[0].call.arguments, r#"{"a":1}"#);
        assert_eq!(run.tool_calls[0].status, CallStatus::Ok);
        assert_eq!(run.usage, Usage::new(3, 4));
        assert_eq!(run.model.as_deref(), Some("m"));

        let other = json!({"text": "", "messages": [], "status": "incomplete",
                           "limit": "completion"});
        let run: RunResult = serde_json::from_value(other).unwrap();
        assert_eq!(run.limit(), Some("completion"));

        let bad = json!({"text": "", "messages": [], "status": "halted"});
        let error = serde_json::from_value::<RunResult>(bad)
            .unwrap_err()
            .to_string();
        assert!(error.contains("unknown status `halted`"), "{error}");
    }
}
