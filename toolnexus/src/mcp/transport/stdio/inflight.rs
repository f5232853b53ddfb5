//! The requests a stdio peer has in flight, bounded.
//!
//! Every request read is handed to the SDK, which runs it in a task of its own and holds
//! its answer until the service loop writes it. Without a bound, a peer that sends many
//! requests at once has every answer built at once, however little of it the peer reads.
//! So at most [`MAX_IN_FLIGHT`] requests are served at a time: later ones are parked, in
//! order, and handed on as earlier ones are answered (or cancelled). Responses and
//! notifications from the peer are always read and passed on at once, so a request
//! waiting on the peer (an elicitation, a sampling request) is never kept from its
//! answer. Once [`MAX_PARKED`] requests (or [`MAX_PARKED_BYTES`] of them) are parked,
//! nothing more is read until one moves on: the pipe fills and the peer's writes wait, as
//! for any stdio server that is behind.

use std::collections::{HashSet, VecDeque};

use rmcp::model::{ClientJsonRpcMessage, ClientNotification, RequestId, ServerJsonRpcMessage};

/// The most requests of one peer served at a time.
pub(super) const MAX_IN_FLIGHT: usize = 16;
/// The most requests of one peer parked while [`MAX_IN_FLIGHT`] are served.
pub(super) const MAX_PARKED: usize = 16 * 1024;
/// The most bytes of parked requests.
pub(super) const MAX_PARKED_BYTES: usize = 16 * 1024 * 1024;

/// The requests in flight and those parked.
#[derive(Default)]
pub(super) struct InFlight {
    serving: HashSet<RequestId>,
    parked: VecDeque<(ClientJsonRpcMessage, usize)>,
    parked_bytes: usize,
}

impl InFlight {
    /// A parked request that may be served now, if any.
    pub(super) fn next_parked(&mut self) -> Option<ClientJsonRpcMessage> {
        if self.serving.len() >= MAX_IN_FLIGHT {
            return None;
        }
        let (message, len) = self.parked.pop_front()?;
        self.parked_bytes -= len;
        if let ClientJsonRpcMessage::Request(request) = &message {
            self.serving.insert(request.id.clone());
        }
        Some(message)
    }

    /// Whether another message may be read: not while the parked requests are at their
    /// bound.
    pub(super) fn may_read(&self) -> bool {
        self.parked.len() < MAX_PARKED && self.parked_bytes < MAX_PARKED_BYTES
    }

    /// Admits a message of `len` bytes read from the peer: the message to hand to the SDK
    /// now, or `None` when it is parked until a request in flight is answered.
    pub(super) fn admit(
        &mut self,
        message: ClientJsonRpcMessage,
        len: usize,
    ) -> Option<ClientJsonRpcMessage> {
        match &message {
            ClientJsonRpcMessage::Request(request) => {
                if self.parked.is_empty() && self.serving.len() < MAX_IN_FLIGHT {
                    self.serving.insert(request.id.clone());
                    return Some(message);
                }
                self.parked_bytes += len;
                self.parked.push_back((message, len));
                None
            }
            ClientJsonRpcMessage::Notification(notification) => {
                if let ClientNotification::CancelledNotification(cancelled) =
                    &notification.notification
                    && let Some(id) = &cancelled.params.request_id
                {
                    self.forget(id);
                }
                Some(message)
            }
            _ => Some(message),
        }
    }

    /// Notes a message sent to the peer: an answer ends its request.
    pub(super) fn sent(&mut self, message: &ServerJsonRpcMessage) {
        match message {
            ServerJsonRpcMessage::Response(response) => {
                self.serving.remove(&response.id);
            }
            ServerJsonRpcMessage::Error(error) => {
                if let Some(id) = &error.id {
                    self.serving.remove(id);
                }
            }
            _ => {}
        }
    }

    /// A request the peer cancelled: no longer in flight, and no longer parked (a
    /// cancelled request needs no answer).
    fn forget(&mut self, id: &RequestId) {
        self.serving.remove(id);
        let mut freed = 0;
        self.parked.retain(|(message, len)| {
            let cancelled = matches!(message, ClientJsonRpcMessage::Request(r) if &r.id == id);
            if cancelled {
                freed += len;
            }
            !cancelled
        });
        self.parked_bytes -= freed;
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn request(id: i64) -> ClientJsonRpcMessage {
        serde_json::from_value(json!({"jsonrpc": "2.0", "id": id, "method": "ping"})).unwrap()
    }

    fn answer(id: i64) -> ServerJsonRpcMessage {
        serde_json::from_value(json!({"jsonrpc": "2.0", "id": id, "result": {}})).unwrap()
    }

    #[test]
    fn requests_past_the_bound_wait_their_turn_in_order() {
        let mut inflight = InFlight::default();
        for id in 0..MAX_IN_FLIGHT as i64 {
            assert!(inflight.admit(request(id), 10).is_some());
        }
        assert!(inflight.admit(request(100), 10).is_none());
        assert!(inflight.admit(request(101), 10).is_none());
        assert!(inflight.next_parked().is_none(), "nothing answered yet");
        inflight.sent(&answer(3));
        let next = inflight.next_parked().expect("a slot is free");
        assert_eq!(serde_json::to_value(&next).unwrap()["id"], 100);
        assert!(inflight.next_parked().is_none(), "one slot only");
        let cancel = serde_json::from_value(json!({"jsonrpc": "2.0",
            "method": "notifications/cancelled", "params": {"requestId": 7}}))
        .unwrap();
        assert!(inflight.admit(cancel, 10).is_some());
        let next = inflight
            .next_parked()
            .expect("the cancelled request's slot");
        assert_eq!(serde_json::to_value(&next).unwrap()["id"], 101);
    }

    #[test]
    fn reading_stops_while_the_parked_requests_are_at_their_bound() {
        let mut inflight = InFlight::default();
        let mut id = 0;
        while inflight.may_read() {
            inflight.admit(request(id), 1);
            id += 1;
        }
        assert_eq!(id as usize, MAX_IN_FLIGHT + MAX_PARKED);
        inflight.sent(&answer(0));
        assert!(inflight.next_parked().is_some());
        assert!(inflight.may_read(), "one parked request moved on");
    }

    #[test]
    fn responses_from_the_peer_always_pass() {
        let mut inflight = InFlight::default();
        for id in 0..(MAX_IN_FLIGHT + 2) as i64 {
            inflight.admit(request(id), 1);
        }
        let response =
            serde_json::from_value(json!({"jsonrpc": "2.0", "id": "s-1", "result": {}})).unwrap();
        assert!(inflight.admit(response, 1).is_some());
    }
}
