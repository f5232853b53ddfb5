//! What a suspended script carries in its request so that the answer can replay it: the
//! script, the calls already made with their results, and the inner request it waits on.
//!
//! The request `run_code` suspends with is the inner tool's own (same id, kind, prompt,
//! URL and expiry, its data beside one more key, [`CODE_STATE_KEY`]), so whoever answers
//! sees the approval or question the tool asked. The loop keeps that request in the run
//! (in memory, or in the store's row for a durable run) and hands it back with the
//! answer, which is how another process resumes the script.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::code::engine::Reply;
use crate::tool::Request;

/// The key, in the data of a request `run_code` suspended with, of the state that
/// replays the script.
pub const CODE_STATE_KEY: &str = crate::tool::request::CODE_STATE_KEY;

/// The version of the state's shape.
const VERSION: u32 = 1;

/// One call the script made and what it got.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Made {
    /// The call's number in the script's calls (0 first).
    pub(crate) seq: usize,
    pub(crate) tool: String,
    pub(crate) args: Value,
    /// Whether the call succeeded.
    pub(crate) ok: bool,
    /// The value the script got, or the error message its promise rejected with.
    pub(crate) value: Value,
}

impl Made {
    /// What the script gets for this call.
    pub(crate) fn reply(&self) -> Reply {
        if self.ok {
            Reply::Value(self.value.to_string())
        } else {
            Reply::Error(self.value.as_str().unwrap_or_default().to_owned())
        }
    }
}

/// The state a suspended script's request carries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Suspended {
    pub(crate) v: u32,
    pub(crate) script: String,
    /// The calls that settled, by number.
    pub(crate) calls: Vec<Made>,
    /// The number of the call waiting on the request.
    pub(crate) at: usize,
    /// The inner tool's request, in its wire form.
    pub(crate) request: Value,
}

impl Suspended {
    pub(crate) fn new(
        script: &str,
        made: &BTreeMap<usize, Made>,
        at: usize,
        inner: &Request,
    ) -> Self {
        Suspended {
            v: VERSION,
            script: script.to_owned(),
            calls: made.values().cloned().collect(),
            at,
            request: inner.to_value(),
        }
    }

    /// The request `run_code` suspends with: the inner one, carrying this state.
    pub(crate) fn request(&self, inner: &Request) -> Request {
        let mut data = match &inner.data {
            Some(Value::Object(map)) => map.clone(),
            None | Some(Value::Null) => Map::new(),
            Some(other) => Map::from_iter([("value".to_owned(), other.clone())]),
        };
        data.insert(
            CODE_STATE_KEY.to_owned(),
            serde_json::to_value(self).unwrap_or(Value::Null),
        );
        let mut outer = Request::new(inner.kind.clone(), inner.prompt.clone())
            .with_id(inner.id.clone())
            .with_data(Value::Object(data));
        outer.url = inner.url.clone();
        outer.expires_at = inner.expires_at.clone();
        outer.trace = inner.trace.clone();
        outer
    }

    /// The state `request` carries, if it is one `run_code` suspended with.
    pub(crate) fn read(request: &Request) -> Result<Option<Suspended>, String> {
        let Some(state) = request.data.as_ref().and_then(|d| d.get(CODE_STATE_KEY)) else {
            return Ok(None);
        };
        let state: Suspended = serde_json::from_value(state.clone())
            .map_err(|e| format!("the suspended script's state does not read: {e}"))?;
        if state.v != VERSION {
            return Err(format!(
                "the suspended script's state is of version {}, this version reads {VERSION}",
                state.v
            ));
        }
        Ok(Some(state))
    }

    /// The inner tool's request.
    pub(crate) fn inner(&self) -> Result<Request, String> {
        serde_json::from_value(self.request.clone())
            .map_err(|e| format!("the suspended call's request does not read: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_request_is_the_inner_one_with_the_state_beside_its_data() {
        let inner = Request::approval("Send it?")
            .with_id("approve-1")
            .with_data(json!({"tool": "send", "arguments": {"to": "ana"}}));
        let made = BTreeMap::from([(
            0,
            Made {
                seq: 0,
                tool: "count".into(),
                args: json!({"n": 1}),
                ok: true,
                value: json!(1),
            },
        )]);
        let state = Suspended::new("await tools.count({n: 1})", &made, 1, &inner);
        let outer = state.request(&inner);
        assert_eq!(
            (
                outer.id.as_str(),
                outer.kind.as_str(),
                outer.prompt.as_str()
            ),
            ("approve-1", "approval", "Send it?")
        );
        assert_eq!(outer.data.as_ref().unwrap()["tool"], "send");
        // Through the wire form, as a store keeps it.
        let stored: Request = serde_json::from_value(outer.to_value()).unwrap();
        let read = Suspended::read(&stored).unwrap().unwrap();
        assert_eq!(read, state);
        assert_eq!(read.inner().unwrap(), inner);
        assert_eq!(Suspended::read(&inner), Ok(None));
    }
}
