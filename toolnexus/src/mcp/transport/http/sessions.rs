//! The SDK's in-memory session manager, with replays bound to their session: every stream
//! a session's request is answered on is claimed for that session in the event store
//! before its first event leaves, and a replay (`GET` with `Last-Event-ID` and
//! `Mcp-Session-Id`) is served only from the store, only for a stream of the session that
//! asks. (The SDK's own manager, given a store, replays any id to any session.)

use std::sync::Arc;

use futures_util::{Stream, StreamExt as _};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError, SessionError,
};
use rmcp::transport::streamable_http_server::session::{
    EventStore, RestoreOutcome, ServerSseMessage, SessionId, SessionManager,
};

use super::events::MemoryEventStore;

pub(super) struct Sessions {
    /// The SDK's manager, with `store` as its event store.
    pub(super) local: LocalSessionManager,
    store: MemoryEventStore,
    shared: Arc<dyn EventStore>,
}

impl Sessions {
    /// `local` must have been given `store` (`with_event_store`): it writes the events.
    pub(super) fn new(local: LocalSessionManager, store: MemoryEventStore) -> Self {
        let shared: Arc<dyn EventStore> = Arc::new(store.clone());
        Sessions {
            local,
            store,
            shared,
        }
    }

    /// `stream`, whose stream is claimed for `session` as its first event with an id goes
    /// by (the events of one response stream all belong to one stream).
    fn claimed(
        &self,
        session: &SessionId,
        stream: impl Stream<Item = ServerSseMessage> + Send + Sync + 'static,
    ) -> impl Stream<Item = ServerSseMessage> + Send + Sync + 'static {
        let store = self.store.clone();
        let session = Arc::clone(session);
        let mut claimed = false;
        stream.map(move |event| {
            if !claimed && let Some(id) = &event.event_id {
                store.claim(id, &session);
                claimed = true;
            }
            event
        })
    }
}

impl SessionManager for Sessions {
    type Error = LocalSessionManagerError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        self.local.create_session().await
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.local.initialize_session(id, message).await
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        self.local.has_session(id).await
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.local.close_session(id).await
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let stream = self.local.create_stream(id, message).await?;
        Ok(self.claimed(id, stream))
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        self.local.accept_message(id, message).await
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let stream = self.local.create_standalone_stream(id).await?;
        Ok(self.claimed(id, stream))
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.store
            .replay(&last_event_id, Some(id))
            .map_err(|error| SessionError::EventStore(error).into())
    }

    async fn restore_session(
        &self,
        id: SessionId,
    ) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        self.local.restore_session(id).await
    }

    fn event_store(&self) -> Option<Arc<dyn EventStore>> {
        Some(Arc::clone(&self.shared))
    }
}
