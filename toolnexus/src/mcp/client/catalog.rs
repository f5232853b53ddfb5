//! Another server's resources and prompts through [`McpClient`]: listing them, reading
//! and getting them, completing their arguments, and hearing of their changes.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use rmcp::model::{
    ArgumentInfo, CompleteRequestParams, CompletionContext, ContentBlock, GetPromptRequestParams,
    ProtocolVersion, ReadResourceRequestParams, Reference, SubscribeRequestParams,
    SubscriptionFilter, UnsubscribeRequestParams,
};
use rmcp::service::{ServiceError, SubscriptionEnd};
use tokio::sync::{broadcast, watch};
use tokio::task::JoinHandle;

use super::McpClient;
use super::error::McpClientError;
use crate::primitive::complete::{Completion, CompletionRequest};
use crate::primitive::contents::ResourceContents;
use crate::primitive::message::{
    PromptContent, PromptMessage, PromptReply, PromptRole, ResourceLink,
};
use crate::primitive::prompt::PromptArgument;
use crate::tool::content::{ContentPart, PartKind};

/// A resource another server lists (`resources/list`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResourceInfo {
    /// Its URI: read it with [`McpClient::read_resource`].
    pub uri: String,
    /// Its name.
    pub name: String,
    /// A human-readable title, if any.
    pub title: Option<String>,
    /// What it is, if said.
    pub description: Option<String>,
    /// Its MIME type, if known.
    pub mime_type: Option<String>,
    /// Its size in bytes, if known.
    pub size: Option<u64>,
}

/// A resource template another server lists (`resources/templates/list`): fill in its
/// variables and read the URI with [`McpClient::read_resource`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResourceTemplateInfo {
    /// The URI template (RFC 6570), as the server writes it.
    pub uri_template: String,
    /// Its name.
    pub name: String,
    /// A human-readable title, if any.
    pub title: Option<String>,
    /// What it is, if said.
    pub description: Option<String>,
    /// The MIME type of what it reads, if known.
    pub mime_type: Option<String>,
}

/// A prompt another server lists (`prompts/list`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PromptInfo {
    /// Its name: get it with [`McpClient::prompt`].
    pub name: String,
    /// A human-readable title, if any.
    pub title: Option<String>,
    /// What it is for, if said.
    pub description: Option<String>,
    /// The arguments it takes.
    pub arguments: Vec<PromptArgument>,
}

/// The URIs a server says were updated, from [`McpClient::resource_updates`].
#[derive(Debug)]
pub struct ResourceUpdates {
    updates: broadcast::Receiver<String>,
}

impl ResourceUpdates {
    /// The next URI updated; `None` once the client is gone. Updates missed because
    /// this receiver fell more than 1024 behind are skipped.
    pub async fn next(&mut self) -> Option<String> {
        loop {
            match self.updates.recv().await {
                Ok(uri) => return Some(uri),
                Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    }
}

/// What a connection hears about resources and prompts.
pub(crate) struct Notes {
    pub(super) resources: watch::Sender<u64>,
    pub(super) prompts: watch::Sender<u64>,
    updates: broadcast::Sender<String>,
    /// The open `subscriptions/listen` of a 2026-07-28 connection, by URI.
    listens: Mutex<HashMap<String, JoinHandle<()>>>,
}

impl Default for Notes {
    fn default() -> Self {
        Notes {
            resources: watch::channel(0).0,
            prompts: watch::channel(0).0,
            updates: broadcast::channel(1024).0,
            listens: Mutex::default(),
        }
    }
}

impl Notes {
    pub(super) fn updated(&self, uri: String) {
        let _ = self.updates.send(uri);
    }

    fn listens(&self) -> std::sync::MutexGuard<'_, HashMap<String, JoinHandle<()>>> {
        self.listens
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Drop for Notes {
    fn drop(&mut self) {
        for (_, listen) in self.listens().drain() {
            listen.abort();
        }
    }
}

fn failed(client: &McpClient, method: &str, error: impl std::fmt::Display) -> McpClientError {
    McpClientError::Request {
        server: client.shared.server(),
        method: method.to_owned(),
        message: error.to_string(),
    }
}

fn contents(wire: rmcp::model::ResourceContents) -> Result<ResourceContents, String> {
    let (made, uri, mime, meta) = match wire {
        rmcp::model::ResourceContents::TextResourceContents {
            uri,
            mime_type,
            text,
            meta,
        } => (ResourceContents::text(text), uri, mime_type, meta),
        rmcp::model::ResourceContents::BlobResourceContents {
            uri,
            mime_type,
            blob,
            meta,
        } => {
            let bytes = STANDARD
                .decode(blob.trim())
                .map_err(|e| format!("the contents of {uri} are not base64 ({e})"))?;
            (ResourceContents::blob(bytes), uri, mime_type, meta)
        }
        _ => return Err("contents of a kind this client does not know".to_owned()),
    };
    // `_meta` travels with the contents (an MCP Apps view's `ui` settings).
    let made = match meta {
        Some(meta) => made.with_uri(uri).with_meta(meta.0),
        None => made.with_uri(uri),
    };
    Ok(match mime {
        Some(mime) => made.with_mime_type(mime),
        None => made,
    })
}

/// A prompt message's content; what cannot be read is said in text, as a tool result's
/// would be.
fn message(wire: rmcp::model::PromptMessage) -> PromptMessage {
    let role = match wire.role {
        rmcp::model::Role::Assistant => PromptRole::Assistant,
        _ => PromptRole::User,
    };
    let media = |kind: PartKind, data: &str, mime: &str| {
        STANDARD
            .decode(data.trim())
            .map_err(|e| e.to_string())
            .and_then(|bytes| ContentPart::from_bytes(kind, mime, bytes).map_err(|e| e.to_string()))
            .map_or_else(
                |why| PromptContent::Text(format!("[{kind} ({mime}) not readable: {why}]")),
                PromptContent::Part,
            )
    };
    let content = match wire.content {
        ContentBlock::Text(text) => PromptContent::Text(text.text),
        ContentBlock::Image(image) => media(PartKind::Image, &image.data, &image.mime_type),
        ContentBlock::Audio(audio) => media(PartKind::Audio, &audio.data, &audio.mime_type),
        ContentBlock::Resource(embedded) => match contents(embedded.resource) {
            Ok(contents) => PromptContent::Resource(contents),
            Err(why) => PromptContent::Text(format!("[embedded resource not readable: {why}]")),
        },
        ContentBlock::ResourceLink(resource) => {
            let mut link = ResourceLink::new(resource.uri, resource.name);
            link.description = resource.description;
            link.mime_type = resource.mime_type;
            PromptContent::Link(link)
        }
        other => PromptContent::Text(format!(
            "[content this client does not know: {}]",
            serde_json::to_string(&other).unwrap_or_default()
        )),
    };
    PromptMessage::new(role, content)
}

impl McpClient {
    async fn bounded<T>(
        &self,
        method: &str,
        limit: Duration,
        request: impl Future<Output = Result<T, ServiceError>>,
    ) -> Result<T, McpClientError> {
        match tokio::time::timeout(limit, request).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(error)) => Err(failed(self, method, error)),
            Err(_) => Err(McpClientError::Timeout {
                server: self.shared.server(),
                what: method.to_owned(),
                after: limit,
            }),
        }
    }

    /// The server's resources, every page of `resources/list` followed, in its order.
    pub async fn resources(&self) -> Result<Vec<ResourceInfo>, McpClientError> {
        let peer = self.shared.peer().await?;
        let limit = self.shared.options.connect_timeout;
        let listed = self
            .bounded("resources/list", limit, peer.list_all_resources())
            .await?;
        Ok(listed
            .into_iter()
            .map(|r| ResourceInfo {
                uri: r.uri,
                name: r.name,
                title: r.title,
                description: r.description,
                mime_type: r.mime_type,
                size: r.size,
            })
            .collect())
    }

    /// The server's resource templates, every page of `resources/templates/list`
    /// followed, in its order.
    pub async fn resource_templates(&self) -> Result<Vec<ResourceTemplateInfo>, McpClientError> {
        let peer = self.shared.peer().await?;
        let limit = self.shared.options.connect_timeout;
        let listed = self
            .bounded(
                "resources/templates/list",
                limit,
                peer.list_all_resource_templates(),
            )
            .await?;
        Ok(listed
            .into_iter()
            .map(|t| ResourceTemplateInfo {
                uri_template: t.uri_template,
                name: t.name,
                title: t.title,
                description: t.description,
                mime_type: t.mime_type,
            })
            .collect())
    }

    /// Reads the resource at `uri` (a listed URI, or one a template stands for): its
    /// contents, text or bytes, each with its URI and MIME type. Bounded by the call
    /// timeout.
    pub async fn read_resource(&self, uri: &str) -> Result<Vec<ResourceContents>, McpClientError> {
        let peer = self.shared.peer().await?;
        let limit = self.shared.options.timeout;
        let request = peer.read_resource(ReadResourceRequestParams::new(uri));
        let read = self.bounded("resources/read", limit, request).await?;
        read.contents
            .into_iter()
            .map(contents)
            .collect::<Result<_, _>>()
            .map_err(|why| failed(self, "resources/read", why))
    }

    /// The server's prompts, every page of `prompts/list` followed, in its order.
    pub async fn prompts(&self) -> Result<Vec<PromptInfo>, McpClientError> {
        let peer = self.shared.peer().await?;
        let limit = self.shared.options.connect_timeout;
        let listed = self
            .bounded("prompts/list", limit, peer.list_all_prompts())
            .await?;
        Ok(listed
            .into_iter()
            .map(|p| PromptInfo {
                name: p.name,
                title: p.title,
                description: p.description,
                arguments: (p.arguments.into_iter().flatten())
                    .map(|a| {
                        let mut argument = PromptArgument::new(a.name);
                        argument.description = a.description;
                        argument.required = a.required.unwrap_or(false);
                        argument
                    })
                    .collect(),
            })
            .collect())
    }

    /// Gets the prompt `name` filled in with `arguments`: its messages (text, images,
    /// audio, embedded resources, resource links) and description. Bounded by the call
    /// timeout.
    pub async fn prompt<I, K, V>(
        &self,
        name: &str,
        arguments: I,
    ) -> Result<PromptReply, McpClientError>
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<String>,
        V: Into<String>,
    {
        let peer = self.shared.peer().await?;
        let limit = self.shared.options.timeout;
        let arguments: serde_json::Map<String, serde_json::Value> = arguments
            .into_iter()
            .map(|(k, v)| (k.into(), serde_json::Value::String(v.into())))
            .collect();
        let mut params = GetPromptRequestParams::new(name);
        if !arguments.is_empty() {
            params = params.with_arguments(arguments);
        }
        let got = self
            .bounded("prompts/get", limit, peer.get_prompt(params))
            .await?;
        let mut reply = PromptReply::new(got.messages.into_iter().map(message));
        reply.description = got.description;
        Ok(reply)
    }

    /// The values the server offers for an argument of the prompt `prompt`
    /// (`completion/complete`): `request` names the argument, what was typed, and the
    /// other arguments' values.
    pub async fn complete_prompt(
        &self,
        prompt: &str,
        request: &CompletionRequest,
    ) -> Result<Completion, McpClientError> {
        self.complete(Reference::for_prompt(prompt), request).await
    }

    /// The values the server offers for a variable of the resource template `template`.
    pub async fn complete_resource(
        &self,
        template: &str,
        request: &CompletionRequest,
    ) -> Result<Completion, McpClientError> {
        self.complete(Reference::for_resource(template), request)
            .await
    }

    async fn complete(
        &self,
        reference: Reference,
        request: &CompletionRequest,
    ) -> Result<Completion, McpClientError> {
        let peer = self.shared.peer().await?;
        let limit = self.shared.options.connect_timeout;
        let argument = ArgumentInfo::new(&request.argument, &request.value);
        let mut params = CompleteRequestParams::new(reference, argument);
        if !request.context.is_empty() {
            params =
                params.with_context(CompletionContext::with_arguments(request.context.clone()));
        }
        let done = self
            .bounded("completion/complete", limit, peer.complete(params))
            .await?;
        let mut completion = Completion::from_values(done.completion.values);
        completion.total = done.completion.total.or(completion.total);
        completion.has_more = done.completion.has_more.unwrap_or(false);
        Ok(completion)
    }

    /// Asks the server for `notifications/resources/updated` about `uri`
    /// (`resources/subscribe`; a `subscriptions/listen` on MCP 2026-07-28): they arrive
    /// on [`McpClient::resource_updates`]. A connection made again after the server
    /// went away does not carry the subscription: subscribe again.
    #[allow(deprecated)] // `resources/subscribe`, for servers before 2026-07-28.
    pub async fn subscribe(&self, uri: &str) -> Result<(), McpClientError> {
        let peer = self.shared.peer().await?;
        let limit = self.shared.options.connect_timeout;
        if !is_latest(&peer) {
            let request = peer.subscribe(SubscribeRequestParams::new(uri));
            return self.bounded("resources/subscribe", limit, request).await;
        }
        let filter = SubscriptionFilter::builder()
            .resource_subscriptions([uri])
            .build();
        let mut subscription = self
            .bounded("subscriptions/listen", limit, peer.listen(filter.clone()))
            .await?;
        let notes = &self.shared.routing.notes;
        let updates = notes.updates.clone();
        let forward = tokio::spawn(async move {
            loop {
                while let Ok(Some(notification)) = subscription.next().await {
                    if let rmcp::model::ServerNotification::ResourceUpdatedNotification(update) =
                        notification
                    {
                        let _ = updates.send(update.params.uri);
                    }
                }
                // A server ends a listen gracefully when its time is up: listen again.
                if !matches!(subscription.end(), Some(SubscriptionEnd::Graceful(_))) {
                    break;
                }
                match tokio::time::timeout(limit, peer.listen(filter.clone())).await {
                    Ok(Ok(next)) => subscription = next,
                    _ => break,
                }
            }
        });
        if let Some(earlier) = notes.listens().insert(uri.to_owned(), forward) {
            earlier.abort();
        }
        Ok(())
    }

    /// Stops the updates about `uri` (`resources/unsubscribe`, or the end of its listen).
    #[allow(deprecated)]
    pub async fn unsubscribe(&self, uri: &str) -> Result<(), McpClientError> {
        if let Some(listen) = self.shared.routing.notes.listens().remove(uri) {
            // Dropping the subscription cancels its listen.
            listen.abort();
            return Ok(());
        }
        let peer = self.shared.peer().await?;
        let limit = self.shared.options.connect_timeout;
        let request = peer.unsubscribe(UnsubscribeRequestParams::new(uri));
        self.bounded("resources/unsubscribe", limit, request).await
    }

    /// The URIs the server says were updated from now on (for the subscriptions of
    /// [`McpClient::subscribe`]).
    pub fn resource_updates(&self) -> ResourceUpdates {
        ResourceUpdates {
            updates: self.shared.routing.notes.updates.subscribe(),
        }
    }

    /// Completes on the server's next `notifications/resources/list_changed` (watching
    /// from the moment it is made).
    pub fn resources_changed(&self) -> impl Future<Output = ()> + Send + 'static {
        let mut watch = self.shared.routing.notes.resources.subscribe();
        async move {
            let _ = watch.changed().await;
        }
    }

    /// Completes on the server's next `notifications/prompts/list_changed`.
    pub fn prompts_changed(&self) -> impl Future<Output = ()> + Send + 'static {
        let mut watch = self.shared.routing.notes.prompts.subscribe();
        async move {
            let _ = watch.changed().await;
        }
    }
}

/// Whether the connection negotiated MCP 2026-07-28 or later (subscriptions are
/// `subscriptions/listen` there).
fn is_latest(peer: &rmcp::service::Peer<rmcp::RoleClient>) -> bool {
    peer.peer_info()
        .is_some_and(|info| info.protocol_version >= ProtocolVersion::V_2026_07_28)
}
