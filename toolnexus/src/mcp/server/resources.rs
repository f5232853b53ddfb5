//! `resources/list`, `resources/templates/list`, `resources/read`, subscriptions, and
//! the pages every listing is cut into.

use rmcp::RoleServer;
use rmcp::model::{
    ErrorData, ListResourceTemplatesResult, ListResourcesResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, SubscriptionFilter,
};
use rmcp::service::{RequestContext, SubscriptionContext};
use serde_json::json;

use super::McpServer;
use super::catalog::MAX_SUBSCRIPTIONS;
use crate::primitive::contents::ResourceContents;
use crate::primitive::resource::{Resource, ResourceError};

/// The page of `items` a request's cursor points at, and the cursor of the next page. A
/// cursor is the index of the page's first item, in decimal; one that is not, or points
/// past the end, is invalid params.
pub(super) fn page<T: Clone>(
    items: &[T],
    request: Option<&PaginatedRequestParams>,
    size: usize,
) -> Result<(Vec<T>, Option<String>), ErrorData> {
    let start = match request.and_then(|r| r.cursor.as_deref()) {
        None => 0,
        Some(cursor) => cursor
            .parse::<usize>()
            .ok()
            .filter(|&at| at <= items.len())
            .ok_or_else(|| {
                ErrorData::invalid_params(
                    format!("Invalid cursor `{cursor}`: pass the `nextCursor` of the page before"),
                    Some(json!({"cursor": cursor})),
                )
            })?,
    };
    let end = start.saturating_add(size).min(items.len());
    let next = (end < items.len()).then(|| end.to_string());
    Ok((items[start..end].to_vec(), next))
}

/// How `resource` is listed, as a `$listing` (`Resource` or `ResourceTemplate`: the
/// same fields and builder methods, on two types).
macro_rules! listing {
    ($listing:ident, $resource:expr) => {{
        let resource: &Resource = $resource;
        let mut listed = rmcp::model::$listing::new(resource.uri(), resource.name());
        if !resource.description().is_empty() {
            listed = listed.with_description(resource.description());
        }
        if let Some(title) = resource.title() {
            listed = listed.with_title(title);
        }
        if let Some(mime) = resource.mime_type() {
            listed = listed.with_mime_type(mime);
        }
        listed
    }};
}

fn listed(resource: &Resource) -> rmcp::model::Resource {
    listing!(Resource, resource)
}

fn listed_template(resource: &Resource) -> rmcp::model::ResourceTemplate {
    listing!(ResourceTemplate, resource)
}

/// Contents as MCP carries them.
pub(super) fn wire_contents(contents: &ResourceContents) -> rmcp::model::ResourceContents {
    let wire = match (contents.as_text(), contents.base64()) {
        (Some(text), _) => rmcp::model::ResourceContents::text(text, contents.uri()),
        (None, blob) => {
            rmcp::model::ResourceContents::blob(blob.unwrap_or_default(), contents.uri())
        }
    };
    let wire = match contents.mime_type() {
        Some(mime) => wire.with_mime_type(mime),
        None => wire,
    };
    match contents.meta() {
        Some(meta) => wire.with_meta(rmcp::model::MetaObject(meta.clone())),
        None => wire,
    }
}

/// The JSON-RPC error of a failed read: not found (`-32002`), invalid params, or an
/// internal error with the function's message.
pub(super) fn read_error(uri: &str, error: ResourceError) -> ErrorData {
    let data = Some(json!({"uri": uri}));
    match error {
        ResourceError::NotFound { uri } => {
            ErrorData::resource_not_found(format!("Resource not found: {uri}"), data)
        }
        ResourceError::InvalidParams { message } => ErrorData::invalid_params(message, data),
        ResourceError::Failed { message } => ErrorData::internal_error(message, data),
    }
}

impl McpServer {
    pub(super) fn resource_list(
        &self,
        request: Option<&PaginatedRequestParams>,
        context: &RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.met(&context.peer);
        let fixed: Vec<Resource> = (self.0.live.catalog().resources.iter())
            .filter(|r| !r.is_template())
            .cloned()
            .collect();
        let (items, next) = page(&fixed, request, self.0.page_size)?;
        let mut result = ListResourcesResult::with_all_items(items.iter().map(listed).collect());
        result.next_cursor = next;
        Ok(result)
    }

    pub(super) fn template_list(
        &self,
        request: Option<&PaginatedRequestParams>,
        context: &RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.met(&context.peer);
        let templates: Vec<Resource> = (self.0.live.catalog().resources.iter())
            .filter(|r| r.is_template())
            .cloned()
            .collect();
        let (items, next) = page(&templates, request, self.0.page_size)?;
        let mut result = ListResourceTemplatesResult::with_all_items(
            items.iter().map(listed_template).collect(),
        );
        result.next_cursor = next;
        Ok(result)
    }

    /// The resource a URI is: the one with that fixed URI, else the first template it
    /// matches, in the order they were given.
    pub(super) fn find_resource(&self, uri: &str) -> Option<Resource> {
        let catalog = self.0.live.catalog();
        let fixed = catalog
            .resources
            .iter()
            .find(|r| !r.is_template() && r.uri() == uri);
        fixed
            .or_else(|| {
                (catalog.resources.iter()).find(|r| r.is_template() && r.matches(uri).is_some())
            })
            .cloned()
    }

    pub(super) async fn resource_read(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.met(&context.peer);
        let uri = request.uri;
        let Some(resource) = self.find_resource(&uri) else {
            return Err(read_error(&uri, ResourceError::not_found(uri.as_str())));
        };
        let ctx = self
            .context(&context)
            .with_toolkit_states(self.0.toolkit.states());
        match resource.read(&uri, ctx).await {
            Ok(contents) => {
                Ok(ReadResourceResult::new(contents.iter().map(wire_contents).collect()).into())
            }
            Err(error) => Err(read_error(&uri, error)),
        }
    }

    /// `resources/subscribe`: this session hears of changes to `uri`, a URI the server
    /// serves (a fixed one, or one a template stands for); anything else is not found.
    pub(super) fn resource_subscribe(
        &self,
        uri: String,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.met(&context.peer);
        if self.find_resource(&uri).is_none() {
            return Err(read_error(&uri, ResourceError::not_found(uri.as_str())));
        }
        if !self.3.subscribe(uri) {
            return Err(ErrorData::invalid_params(
                format!(
                    "This session already subscribes to {MAX_SUBSCRIPTIONS} resources: \
                     unsubscribe from some first"
                ),
                Some(json!({"limit": MAX_SUBSCRIPTIONS})),
            ));
        }
        Ok(())
    }

    /// `resources/unsubscribe`: no more updates of `uri` for this session.
    pub(super) fn resource_unsubscribe(
        &self,
        uri: &str,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.met(&context.peer);
        self.3.unsubscribe(uri);
        Ok(())
    }

    /// What a 2026-07-28 `subscriptions/listen` may hear of: list changes of what the
    /// server declares, and updates of the URIs asked for that it serves (the first
    /// [`MAX_SUBSCRIPTIONS`]).
    pub(super) fn accepted_filter(&self, requested: &SubscriptionFilter) -> SubscriptionFilter {
        let (resources, prompts) = {
            let catalog = self.0.live.catalog();
            (catalog.serves_resources, catalog.serves_prompts)
        };
        let mut accepted = SubscriptionFilter::new();
        if resources {
            accepted.resources_list_changed = requested.resources_list_changed;
            accepted.resource_subscriptions =
                requested.resource_subscriptions.as_ref().map(|uris| {
                    (uris.iter())
                        .filter(|uri| self.find_resource(uri).is_some())
                        .take(MAX_SUBSCRIPTIONS)
                        .cloned()
                        .collect()
                });
        }
        if prompts {
            accepted.prompts_list_changed = requested.prompts_list_changed;
        }
        accepted
    }

    /// Keeps a listen's sink until the client cancels it, or its time is up (see
    /// `McpServer::listen_ttl`; the SDK then sends the final result).
    pub(super) async fn listen_until_cancelled(
        &self,
        context: SubscriptionContext,
    ) -> Result<(), ErrorData> {
        let live = std::sync::Arc::clone(&self.0.live);
        let id = live.listen(context.sink().clone());
        let cancelled = std::pin::pin!(context.cancelled());
        let expired = std::pin::pin!(tokio::time::sleep(live.listen_ttl()));
        futures_util::future::select(cancelled, expired).await;
        live.unlisten(id);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(cursor: &str) -> PaginatedRequestParams {
        PaginatedRequestParams::default().with_cursor(Some(cursor.to_owned()))
    }

    #[test]
    fn pages_follow_their_cursors_to_the_end() {
        let items: Vec<u32> = (0..5).collect();
        let (first, next) = page(&items, None, 2).unwrap();
        assert_eq!((first, next.as_deref()), (vec![0, 1], Some("2")));
        let (last, next) = page(&items, Some(&at("4")), 2).unwrap();
        assert_eq!((last, next), (vec![4], None));
        let (empty, next) = page(&items, Some(&at("5")), 2).unwrap();
        assert!(empty.is_empty() && next.is_none());
        for bad in ["6", "x", "-1"] {
            let error = page(&items, Some(&at(bad)), 2).unwrap_err();
            assert_eq!(error.code, rmcp::model::ErrorCode::INVALID_PARAMS, "{bad}");
        }
    }
}
