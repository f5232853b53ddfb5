//! What a prompt gives: [`PromptMessage`]s of text, images, audio and embedded resources.

use crate::primitive::contents::ResourceContents;
use crate::tool::content::ContentPart;

/// Who speaks a [`PromptMessage`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PromptRole {
    /// The user.
    User,
    /// The assistant (a model's earlier turn, to steer the next).
    Assistant,
}

impl PromptRole {
    /// `"user"` or `"assistant"`, as MCP writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            PromptRole::User => "user",
            PromptRole::Assistant => "assistant",
        }
    }
}

/// The content of one [`PromptMessage`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PromptContent {
    /// Text.
    Text(String),
    /// An image or an audio clip (MCP `image` / `audio` content); a PDF goes as an
    /// embedded resource.
    Part(ContentPart),
    /// A resource's contents, embedded (MCP `resource` content).
    Resource(ResourceContents),
    /// A link to a resource the client may read (MCP `resource_link` content).
    Link(ResourceLink),
}

impl From<String> for PromptContent {
    fn from(text: String) -> Self {
        PromptContent::Text(text)
    }
}

impl From<&str> for PromptContent {
    fn from(text: &str) -> Self {
        PromptContent::Text(text.to_owned())
    }
}

impl From<ContentPart> for PromptContent {
    fn from(part: ContentPart) -> Self {
        PromptContent::Part(part)
    }
}

impl From<ResourceContents> for PromptContent {
    fn from(contents: ResourceContents) -> Self {
        PromptContent::Resource(contents)
    }
}

impl From<ResourceLink> for PromptContent {
    fn from(link: ResourceLink) -> Self {
        PromptContent::Link(link)
    }
}

/// A link to a resource, by URI, with what a client shows of it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResourceLink {
    /// The resource's URI.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// What it is, if said.
    pub description: Option<String>,
    /// Its MIME type, if known.
    pub mime_type: Option<String>,
}

impl ResourceLink {
    /// A link to `uri`, named `name`.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        ResourceLink {
            uri: uri.into(),
            name: name.into(),
            description: None,
            mime_type: None,
        }
    }
}

/// One message of a prompt: a role and one piece of content.
///
/// ```
/// use toolnexus::primitive::{PromptContent, PromptMessage, PromptRole, ResourceContents};
///
/// let ask = PromptMessage::user("Review this file:");
/// let file = PromptMessage::user(ResourceContents::text("fn main() {}").with_uri("file:///main.rs"));
/// let steer = PromptMessage::assistant("I will look for bugs first.");
/// assert_eq!(ask.role, PromptRole::User);
/// assert!(matches!(file.content, PromptContent::Resource(_)));
/// assert_eq!(steer.text(), Some("I will look for bugs first."));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PromptMessage {
    /// Who speaks it.
    pub role: PromptRole,
    /// What it says.
    pub content: PromptContent,
}

impl PromptMessage {
    /// A message of `role` with `content`.
    pub fn new(role: PromptRole, content: impl Into<PromptContent>) -> Self {
        PromptMessage {
            role,
            content: content.into(),
        }
    }

    /// A user message: text, an image ([`ContentPart`]) or a resource's contents.
    pub fn user(content: impl Into<PromptContent>) -> Self {
        PromptMessage::new(PromptRole::User, content)
    }

    /// An assistant message.
    pub fn assistant(content: impl Into<PromptContent>) -> Self {
        PromptMessage::new(PromptRole::Assistant, content)
    }

    /// The text, for a text message.
    pub fn text(&self) -> Option<&str> {
        match &self.content {
            PromptContent::Text(text) => Some(text),
            _ => None,
        }
    }
}

/// What getting a prompt gives: its messages, and a description of this instance of it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PromptReply {
    /// A description of the prompt as filled in, if any.
    pub description: Option<String>,
    /// The messages, in order.
    pub messages: Vec<PromptMessage>,
}

impl PromptReply {
    /// A reply of `messages`.
    pub fn new(messages: impl IntoIterator<Item = PromptMessage>) -> Self {
        PromptReply {
            description: None,
            messages: messages.into_iter().collect(),
        }
    }

    /// The same reply, with a description.
    #[must_use]
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }
}
