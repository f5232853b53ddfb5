//! Elicitation as a suspension: a server's `elicitation/create` becomes a [`Request`], the
//! call that caused it is parked under the request's id, and the [`Answer`] that comes
//! back on the call's re-execution is sent to the server as the elicitation's result.

use std::collections::HashMap;
use std::sync::Mutex;

use futures_util::future::BoxFuture;
use rmcp::model::{CallToolResponse, ElicitRequestParams, ElicitResult, ElicitationAction};
use rmcp::service::ServiceError;
use serde_json::{Map, Value, json};
use tokio::sync::oneshot;
use tokio::time::Instant;

use super::handler::SlotGuard;
use crate::tool::request::{Answer, Request};

/// In the `data` of a [`Request`] this client makes for a login (`"login"`), a URL the
/// server requires before a call (`"elicitation"`) or an `input_required` result
/// (`"input_required"`), this key says which. A request made from an
/// `elicitation/create` has the contract's data instead: `{"schema": …}` for a form.
pub const ELICITATION_DATA_KEY: &str = "mcp";

/// The [`Answer::reason`] that declines an elicitation; any other refusal cancels it.
pub const DECLINED: &str = "declined";

/// A `tools/call` on its way: the request's future, and its place in the routing (where
/// its elicitations arrive).
pub(super) struct InFlight {
    pub(super) future: BoxFuture<'static, Result<CallToolResponse, ServiceError>>,
    pub(super) slot: SlotGuard,
    /// An answer to give the call's first elicitation straight away: the call is the
    /// re-execution of one whose parked state is gone (a resume in a new process).
    pub(super) preset: Option<Answer>,
}

/// A call waiting for the answer to its elicitation.
pub(super) struct ParkedElicitation {
    pub(super) call: InFlight,
    pub(super) params: ElicitRequestParams,
    pub(super) reply: oneshot::Sender<ElicitResult>,
    pub(super) until: Instant,
}

/// The parked calls of one client, by request id.
#[derive(Default)]
pub(super) struct Parking(Mutex<HashMap<String, ParkedElicitation>>);

impl Parking {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, ParkedElicitation>> {
        // Every update is a single insert or remove: a poisoned map is still consistent.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(super) fn park(&self, id: String, parked: ParkedElicitation) {
        self.map().insert(id, parked);
    }

    pub(super) fn take(&self, id: &str) -> Option<ParkedElicitation> {
        self.map().remove(id)
    }

    /// Drops the parked calls nobody answered in time: their elicitations were already
    /// cancelled, and dropping the call cancels it on the server.
    pub(super) fn sweep(&self) {
        let expired: Vec<ParkedElicitation> = {
            let mut map = self.map();
            if map.is_empty() {
                return; // What nearly every call finds: no clock read, no allocation.
            }
            let now = Instant::now();
            let ids: Vec<String> = map
                .iter()
                .filter(|(_, parked)| parked.until <= now)
                .map(|(id, _)| id.clone())
                .collect();
            ids.iter().filter_map(|id| map.remove(id)).collect()
        };
        drop(expired);
    }

    pub(super) fn len(&self) -> usize {
        self.map().len()
    }
}

/// The [`Request`] a host answers for an elicitation (the toolnexus contract's mapping,
/// byte for byte the Python port's): a form is an `"input"` request whose `data` is
/// `{"schema": <the requested schema>}`; a URL is an `"authorization"` request with the
/// URL and no data. The prompt is the server's message.
pub(super) fn request_for(params: &ElicitRequestParams) -> Request {
    match params {
        ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } => Request::input(message.clone()).with_data(json!({
            "schema": serde_json::to_value(requested_schema).unwrap_or(Value::Null),
        })),
        ElicitRequestParams::UrlElicitationParams { message, url, .. } => {
            Request::authorization(url.clone(), message.clone())
        }
        // A mode this version does not know: ask for input, with everything the server sent.
        #[allow(unreachable_patterns)]
        other => Request::input("The MCP server asks for input").with_data(json!({
            "params": serde_json::to_value(other).unwrap_or(Value::Null),
        })),
    }
}

/// The elicitation result an [`Answer`] gives.
///
/// A negative answer declines when its reason is `"declined"`, and cancels otherwise (the
/// contract's mapping: an expired, aborted or unexplained refusal is a cancel). A positive one
/// accepts: a URL elicitation with no content; a form with the answer's data, where an
/// object is sent as is, a lone value (`"prod"`) fills the form's only field, and no data
/// is an empty form.
pub(super) fn reply_for(answer: &Answer, params: &ElicitRequestParams) -> ElicitResult {
    if !answer.ok {
        let action = if answer.reason.as_deref() == Some(DECLINED) {
            ElicitationAction::Decline
        } else {
            ElicitationAction::Cancel
        };
        return ElicitResult::new(action);
    }
    let accept = ElicitResult::new(ElicitationAction::Accept);
    let ElicitRequestParams::FormElicitationParams {
        requested_schema, ..
    } = params
    else {
        return accept;
    };
    let content = match &answer.data {
        Some(Value::Object(map)) => Value::Object(map.clone()),
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(value) => {
            let schema = serde_json::to_value(requested_schema).unwrap_or(Value::Null);
            match schema.get("properties").and_then(Value::as_object) {
                Some(properties) if properties.len() == 1 => {
                    let mut map = Map::new();
                    let name = properties.keys().next().cloned().unwrap_or_default();
                    map.insert(name, value.clone());
                    Value::Object(map)
                }
                _ => value.clone(),
            }
        }
    };
    accept.with_content(with_defaults(content, requested_schema))
}

/// `content` with every field it omits that has a `default` in the requested schema
/// filled in with that default (SEP-1034).
fn with_defaults(content: Value, schema: &impl serde::Serialize) -> Value {
    let Value::Object(mut fields) = content else {
        return content;
    };
    let schema = serde_json::to_value(schema).unwrap_or(Value::Null);
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        for (name, property) in properties {
            if let Some(default) = property.get("default")
                && !fields.contains_key(name)
            {
                fields.insert(name.clone(), default.clone());
            }
        }
    }
    Value::Object(fields)
}

#[cfg(test)]
mod tests {
    use rmcp::model::ElicitationSchema;

    use super::*;

    fn form(schema: ElicitationSchema) -> ElicitRequestParams {
        ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: "Which environment?".to_owned(),
            requested_schema: schema,
        }
    }

    #[test]
    fn answers_become_elicitation_results() {
        let one = form(
            ElicitationSchema::builder()
                .required_string("env")
                .build()
                .unwrap(),
        );
        let request = request_for(&one);
        assert_eq!(request.kind, "input");
        assert_eq!(request.prompt, "Which environment?");
        let data = request.data.clone().unwrap();
        assert_eq!(
            data,
            json!({"schema": serde_json::to_value(
                ElicitationSchema::builder().required_string("env").build().unwrap()
            ).unwrap()})
        );

        let lone = reply_for(&request.answer("prod"), &one);
        assert_eq!(lone.action, ElicitationAction::Accept);
        assert_eq!(lone.content, Some(json!({"env": "prod"})));
        let object = reply_for(&request.answer(json!({"env": "dev"})), &one);
        assert_eq!(object.content, Some(json!({"env": "dev"})));
        let defaults = form(
            serde_json::from_value(json!({
                "type": "object",
                "properties": {
                    "env": {"type": "string", "default": "staging"},
                    "replicas": {"type": "integer", "default": 3},
                    "verbose": {"type": "boolean"}
                }
            }))
            .unwrap(),
        );
        let filled = reply_for(&request.answer(json!({"replicas": 5})), &defaults);
        assert_eq!(
            filled.content,
            Some(json!({"replicas": 5, "env": "staging"}))
        );
        let declined = reply_for(&request.decline(DECLINED), &one);
        assert_eq!(declined.action, ElicitationAction::Decline);
        let cancelled = reply_for(&request.decline("no"), &one);
        assert_eq!(cancelled.action, ElicitationAction::Cancel);

        let url = ElicitRequestParams::UrlElicitationParams {
            meta: None,
            message: "Log in".to_owned(),
            url: "https://example.com/login".to_owned(),
            elicitation_id: "e-1".to_owned(),
        };
        let request = request_for(&url);
        assert_eq!(request.kind, "authorization");
        assert_eq!(request.data, None);
        assert_eq!(request.url.as_deref(), Some("https://example.com/login"));
        let accepted = reply_for(&Answer::accept(&request.id), &url);
        assert_eq!(accepted.action, ElicitationAction::Accept);
        assert_eq!(accepted.content, None);
    }
}
