//! `prompts/list`, `prompts/get` and `completion/complete`.

use rmcp::RoleServer;
use rmcp::model::{
    CompleteRequestParams, CompleteResult, CompletionInfo, ContentBlock, ErrorData,
    GetPromptRequestParams, GetPromptResponse, GetPromptResult, ListPromptsResult,
    PaginatedRequestParams, Reference, Role,
};
use rmcp::service::RequestContext;
use serde_json::json;

use super::McpServer;
use super::resources::{page, wire_contents};
use crate::primitive::complete::CompletionRequest;
use crate::primitive::message::{PromptContent, PromptMessage, PromptRole};
use crate::primitive::prompt::{Prompt, PromptError};

fn listed(prompt: &Prompt) -> rmcp::model::Prompt {
    let arguments = prompt
        .arguments()
        .iter()
        .map(|argument| {
            let mut listed =
                rmcp::model::PromptArgument::new(&argument.name).with_required(argument.required);
            if let Some(description) = &argument.description {
                listed = listed.with_description(description);
            }
            listed
        })
        .collect::<Vec<_>>();
    let description = (!prompt.description().is_empty()).then(|| prompt.description());
    let listed = rmcp::model::Prompt::new(
        prompt.name(),
        description,
        (!arguments.is_empty()).then_some(arguments),
    );
    match prompt.title() {
        Some(title) => listed.with_title(title),
        None => listed,
    }
}

/// A message as MCP carries it. A PDF, which MCP has no content type for, goes as an
/// embedded resource; so do embedded contents without a URI, under
/// `toolnexus://prompts/NAME/N`.
fn wire_message(prompt: &str, index: usize, message: &PromptMessage) -> rmcp::model::PromptMessage {
    let role = match message.role {
        PromptRole::Assistant => Role::Assistant,
        _ => Role::User,
    };
    let uri = || format!("toolnexus://prompts/{prompt}/{index}");
    let content = match &message.content {
        PromptContent::Text(text) => ContentBlock::text(text.as_str()),
        PromptContent::Part(part) => super::convert::mcp_block(part, uri),
        PromptContent::Resource(contents) if contents.uri().is_empty() => {
            ContentBlock::resource(wire_contents(&contents.clone().with_uri(uri())))
        }
        PromptContent::Resource(contents) => ContentBlock::resource(wire_contents(contents)),
        PromptContent::Link(link) => {
            let mut resource = rmcp::model::Resource::new(&link.uri, &link.name);
            if let Some(description) = &link.description {
                resource = resource.with_description(description);
            }
            if let Some(mime) = &link.mime_type {
                resource = resource.with_mime_type(mime);
            }
            ContentBlock::resource_link(resource)
        }
    };
    rmcp::model::PromptMessage::new(role, content)
}

fn get_error(name: &str, error: PromptError) -> ErrorData {
    let data = Some(json!({"prompt": name}));
    match error {
        PromptError::NotFound { name } => {
            ErrorData::invalid_params(format!("Unknown prompt: {name}"), data)
        }
        PromptError::InvalidArguments { message } => ErrorData::invalid_params(message, data),
        PromptError::Failed { message } => ErrorData::internal_error(message, data),
    }
}

impl McpServer {
    pub(super) fn prompt_list(
        &self,
        request: Option<&PaginatedRequestParams>,
        context: &RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        self.met(&context.peer);
        let prompts = self.0.live.catalog().prompts.clone();
        let (items, next) = page(&prompts, request, self.0.page_size)?;
        let mut result = ListPromptsResult::with_all_items(items.iter().map(listed).collect());
        result.next_cursor = next;
        Ok(result)
    }

    fn find_prompt(&self, name: &str) -> Option<Prompt> {
        (self.0.live.catalog().prompts.iter())
            .find(|p| p.name() == name)
            .cloned()
    }

    pub(super) async fn prompt_get(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        self.met(&context.peer);
        let name = request.name;
        let Some(prompt) = self.find_prompt(&name) else {
            return Err(get_error(
                &name,
                PromptError::NotFound { name: name.clone() },
            ));
        };
        let ctx = self
            .context(&context)
            .with_toolkit_states(self.0.toolkit.states());
        let arguments = request
            .arguments
            .unwrap_or_default()
            .into_iter()
            .map(|(k, v)| {
                let text = match v {
                    serde_json::Value::String(text) => text,
                    other => other.to_string(),
                };
                (k, text)
            });
        let reply = prompt
            .get(arguments, ctx)
            .await
            .map_err(|error| get_error(&name, error))?;
        let messages = (reply.messages.iter().enumerate())
            .map(|(index, message)| wire_message(&name, index, message))
            .collect();
        let result = GetPromptResult::new(messages);
        Ok(match reply.description {
            Some(description) => result.with_description(description),
            None => result,
        }
        .into())
    }

    /// `completion/complete`: the values a prompt's argument or a resource template's
    /// variable offers. An unknown prompt or template is invalid params.
    pub(super) fn completion(
        &self,
        request: CompleteRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        self.met(&context.peer);
        let mut asked = CompletionRequest::new(request.argument.name, request.argument.value);
        if let Some(arguments) = request.context.and_then(|c| c.arguments) {
            asked = asked.with_context(arguments);
        }
        let completion = match &request.r#ref {
            Reference::Prompt(reference) => match self.find_prompt(&reference.name) {
                Some(prompt) => prompt.complete(&asked),
                None => {
                    return Err(ErrorData::invalid_params(
                        format!("Unknown prompt: {}", reference.name),
                        Some(json!({"prompt": reference.name})),
                    ));
                }
            },
            Reference::Resource(reference) => {
                let template = (self.0.live.catalog().resources.iter())
                    .find(|r| r.uri() == reference.uri)
                    .cloned();
                match template {
                    Some(resource) => resource.complete(&asked),
                    None => {
                        return Err(ErrorData::invalid_params(
                            format!("Unknown resource template: {}", reference.uri),
                            Some(json!({"uri": reference.uri})),
                        ));
                    }
                }
            }
            _ => {
                return Err(ErrorData::invalid_params(
                    "Unknown kind of completion reference",
                    None,
                ));
            }
        };
        let mut info = CompletionInfo::default();
        info.values = completion.values;
        info.total = completion.total;
        info.has_more = Some(completion.has_more);
        Ok(CompleteResult::new(info))
    }
}
