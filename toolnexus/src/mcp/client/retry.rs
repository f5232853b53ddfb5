//! A server's `input_required` (MCP 2026-07-28) as a suspension: the first elicitation it
//! asks becomes a pending [`Request`], and the [`Answer`] that resumes the call becomes
//! the retry's `inputResponses`, sent with the server's `requestState`.
//!
//! Nothing is kept in memory: the request's id carries the input request's key, the
//! `requestState` and what the answer needs to be read back (the form's only field, or
//! that it was a URL), so a run halted, serialized and resumed in another process retries
//! the same way.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rmcp::model::{
    ElicitRequestParams, ElicitResult, ElicitationAction, InputRequest, InputRequests,
    InputRequiredResult, InputResponses, RequestMetaObject,
};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::elicit::{DECLINED, ELICITATION_DATA_KEY, request_for};
use crate::mcp::PENDING_META_KEY;
use crate::tool::request::{Answer, Request};

/// The prefix of the id of a request made from an `input_required` result.
pub(super) const ID_PREFIX: &str = "mcp-input.";

/// What the id of a request made from an `input_required` result holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct InputId {
    /// The input request's key in `inputRequests`.
    #[serde(rename = "k")]
    key: String,
    /// The server's `requestState`, verbatim.
    #[serde(rename = "s", default, skip_serializing_if = "Option::is_none")]
    state: Option<String>,
    /// The form's only field, which a lone answer value fills.
    #[serde(rename = "f", default, skip_serializing_if = "Option::is_none")]
    field: Option<String>,
    /// A URL elicitation: accepting it sends no content.
    #[serde(rename = "u", default, skip_serializing_if = "std::ops::Not::not")]
    url: bool,
    /// The task (SEP-2663) that asked, and where its server is: the answer goes back
    /// with `tasks/update` to that task, and only to that server.
    #[serde(rename = "t", default, skip_serializing_if = "Option::is_none")]
    task: Option<TaskRef>,
}

/// A task that asked for input mid-task, bound to the server that runs it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct TaskRef {
    /// The server's `taskId`, verbatim.
    #[serde(rename = "i")]
    pub(super) id: String,
    /// Where the server is (its command line or URL): a resumed call sends the answer
    /// only to a server at the same place.
    #[serde(rename = "s")]
    pub(super) server: String,
}

/// What the re-execution after an answer to a request from [`request_for_input`] sends.
#[derive(Debug)]
pub(super) struct InputRetry {
    /// The `inputResponses`: one, under the input request's key.
    pub(super) responses: InputResponses,
    /// The server's `requestState`, for a retried `tools/call`.
    pub(super) state: Option<String>,
    /// The task to send the responses to with `tasks/update`, instead of a retry.
    pub(super) task: Option<TaskRef>,
}

/// The pending request for an `input_required` result, or why
/// this client cannot ask it.
///
/// The request is the server's own when it sent one in the elicitation's
/// `_meta["toolnexus/pending"]` (a toolnexus server: same kind, prompt, URL and data),
/// else the elicitation's form (`"input"`, `data.schema`) or URL
/// (`"authorization"`); its id carries the retry's state. When the server asks several
/// things at once, the first elicitation is asked and the others are cancelled.
pub(super) fn request_for_input(result: &InputRequiredResult) -> Result<Request, String> {
    request_with(result, None)
}

/// The pending request for a task whose status is `input_required`: as
/// [`request_for_input`], with the task (and the server it runs on) in the request's id.
pub(super) fn request_for_task_input(
    requests: &InputRequests,
    task: TaskRef,
) -> Result<Request, String> {
    let result = InputRequiredResult::new(Some(requests.clone()), None);
    request_with(&result, Some(task))
}

fn request_with(result: &InputRequiredResult, task: Option<TaskRef>) -> Result<Request, String> {
    let requests = result.input_requests.clone().unwrap_or_default();
    let Some((key, params, extension)) = requests.iter().find_map(|(key, request)| match request {
        // The SDK moves a request's `_meta` into its extensions when it reads one.
        InputRequest::Elicitation(elicit) => Some((
            key.clone(),
            elicit.params.clone(),
            elicit.extensions.get::<RequestMetaObject>().cloned(),
        )),
        _ => None,
    }) else {
        let kinds: Vec<&str> = requests
            .values()
            .map(|request| match request {
                InputRequest::CreateMessage(_) => "sampling",
                InputRequest::ListRoots(_) => "roots",
                _ => "an unknown kind of input",
            })
            .collect();
        return Err(match kinds.is_empty() {
            true => "it answered `input_required` with nothing to ask".to_owned(),
            false => format!(
                "it asks for {} through `input_required`, which this client does not offer",
                kinds.join(" and ")
            ),
        });
    };
    let (field, url) = match &params {
        ElicitRequestParams::UrlElicitationParams { .. } => (None, true),
        ElicitRequestParams::FormElicitationParams {
            requested_schema, ..
        } => {
            let names: Vec<&String> = requested_schema.properties.keys().collect();
            ((names.len() == 1).then(|| names[0].clone()), false)
        }
        #[allow(unreachable_patterns)]
        _ => (None, false),
    };
    let handle = InputId {
        key,
        state: result.request_state.clone(),
        field,
        url,
        task,
    };
    let text = serde_json::to_vec(&handle).unwrap_or_default();
    let id = format!("{ID_PREFIX}{}", URL_SAFE_NO_PAD.encode(text));
    let served = params_meta(&params)
        .or(extension.as_ref().map(|meta| &meta.0.0))
        .and_then(|meta| meta.get(PENDING_META_KEY))
        .and_then(|value| serde_json::from_value::<Request>(value.clone()).ok());
    let request = match served {
        Some(request) => request,
        None => {
            let mut request = request_for(&params);
            let data = request.data.get_or_insert_with(|| json!({}));
            if let Value::Object(data) = data {
                data.insert(ELICITATION_DATA_KEY.to_owned(), json!("input_required"));
            }
            request
        }
    };
    Ok(request.with_id(id))
}

fn params_meta(params: &ElicitRequestParams) -> Option<&Map<String, Value>> {
    match params {
        ElicitRequestParams::FormElicitationParams { meta, .. }
        | ElicitRequestParams::UrlElicitationParams { meta, .. } => meta.as_ref().map(|m| &m.0.0),
        #[allow(unreachable_patterns)]
        _ => None,
    }
}

/// The `inputResponses`, `requestState` and task of the retry an answer to a request from
/// [`request_for_input`] or [`request_for_task_input`] makes; `None` for an answer to any
/// other request.
///
/// A negative answer declines when its reason is `"declined"`, and cancels otherwise (as
/// for an elicitation). A positive one accepts: a URL with no content, a form with the answer's object, a lone value in the
/// form's only field, or an empty form when there is no data (or a lone value and no
/// single field, as for an approval's `true`).
pub(super) fn retry_for(answer: &Answer) -> Option<InputRetry> {
    let encoded = answer.id.strip_prefix(ID_PREFIX)?;
    let handle: InputId = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(encoded).ok()?).ok()?;
    let result = if !answer.ok {
        match answer.reason.as_deref() {
            Some(DECLINED) => ElicitResult::new(ElicitationAction::Decline),
            _ => ElicitResult::new(ElicitationAction::Cancel),
        }
    } else if handle.url {
        ElicitResult::new(ElicitationAction::Accept)
    } else {
        let content = match (&answer.data, &handle.field) {
            (Some(Value::Object(map)), _) => Value::Object(map.clone()),
            (None | Some(Value::Null), _) => Value::Object(Map::new()),
            (Some(value), Some(field)) => {
                let mut map = Map::new();
                map.insert(field.clone(), value.clone());
                Value::Object(map)
            }
            // A lone value with no single field to put it in (an approval's empty form).
            (Some(_), None) => Value::Object(Map::new()),
        };
        ElicitResult::new(ElicitationAction::Accept).with_content(content)
    };
    let mut responses = InputResponses::new();
    responses.insert(
        handle.key,
        serde_json::to_value(result).unwrap_or(Value::Null),
    );
    Some(InputRetry {
        responses,
        state: handle.state,
        task: handle.task,
    })
}

#[cfg(test)]
mod tests {
    use rmcp::model::{ElicitRequest, ElicitationSchema};

    use super::*;

    fn input_required(params: ElicitRequestParams) -> InputRequiredResult {
        let mut requests = InputRequests::new();
        requests.insert(
            "q1".to_owned(),
            InputRequest::Elicitation(ElicitRequest::new(params)),
        );
        InputRequiredResult::new(Some(requests), Some("opaque-state".to_owned()))
    }

    #[test]
    fn an_input_required_form_round_trips_through_the_request_id() {
        let schema = ElicitationSchema::builder()
            .required_string("env")
            .build()
            .unwrap();
        let result = input_required(ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: "Which environment?".to_owned(),
            requested_schema: schema,
        });
        let request = request_for_input(&result).unwrap();
        assert_eq!(
            (request.kind.as_str(), request.prompt.as_str()),
            ("input", "Which environment?")
        );
        assert!(request.id.starts_with(ID_PREFIX));
        let data = request.data.as_ref().unwrap();
        assert_eq!(data["schema"]["properties"]["env"]["type"], "string");
        assert_eq!(data[ELICITATION_DATA_KEY], "input_required");

        // A serialized and read-back request still carries everything the retry needs.
        let request: Request =
            serde_json::from_value(serde_json::to_value(&request).unwrap()).unwrap();
        let InputRetry {
            responses, state, ..
        } = retry_for(&request.answer("prod")).unwrap();
        assert_eq!(state.as_deref(), Some("opaque-state"));
        assert_eq!(
            responses["q1"],
            json!({"action": "accept", "content": {"env": "prod"}})
        );
        let declined = retry_for(&request.decline(DECLINED)).unwrap().responses;
        assert_eq!(declined["q1"], json!({"action": "decline"}));
        let cancelled = retry_for(&request.decline("no")).unwrap().responses;
        assert_eq!(cancelled["q1"], json!({"action": "cancel"}));
        assert!(retry_for(&Answer::accept("req-1")).is_none());
    }

    #[test]
    fn a_toolnexus_server_s_own_request_comes_back_and_urls_accept_empty() {
        let served = Request::approval("Delete?").with_id("approve-1");
        let mut meta = Map::new();
        meta.insert(
            PENDING_META_KEY.to_owned(),
            serde_json::to_value(&served).unwrap(),
        );
        let result = input_required(ElicitRequestParams::UrlElicitationParams {
            meta: Some(rmcp::model::RequestMetaObject(rmcp::model::MetaObject(
                meta,
            ))),
            message: "Delete?".to_owned(),
            url: "https://example.com".to_owned(),
            elicitation_id: "e".to_owned(),
        });
        let request = request_for_input(&result).unwrap();
        assert_eq!(request.kind, "approval");
        let responses = retry_for(&request.answer(true)).unwrap().responses;
        assert_eq!(responses["q1"], json!({"action": "accept"}));
    }
}
