//! What a resource's or a prompt's function may return, and what each form becomes.

use std::borrow::Cow;
use std::fmt::Display;

use serde::Serialize;

use crate::primitive::contents::ResourceContents;
use crate::primitive::message::{PromptMessage, PromptReply};
use crate::primitive::prompt::PromptError;
use crate::primitive::resource::ResourceError;
use crate::tool::content::ContentPart;
use crate::tool::returns::Json;

/// A value a resource's function returns, as the contents of the read.
///
/// - text: `String`, `&'static str`, `Cow<'static, str>`;
/// - bytes: `Vec<u8>` (the resource's MIME type, else the one the bytes show), or a
///   [`ContentPart`] (an image, a PDF, an audio clip, with its own);
/// - [`Json<T>`](crate::Json) (`T: Serialize`): its JSON text, `application/json`;
/// - [`ResourceContents`], or a `Vec` of them (several contents in one read);
/// - `Result<T, E>` of any of these, `E: Display` (the error fails the read; a
///   [`ResourceError`] is kept as it is, so `ResourceError::not_found` reads as "not
///   found").
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a return type a #[resource] function can have",
    label = "unsupported #[resource] return type",
    note = "a #[resource] function returns text (`String`, `&'static str`), bytes (`Vec<u8>`, `ContentPart`), `Json<T>`, `ResourceContents` or `Vec<ResourceContents>`, or a `Result<T, E>` of one of those with `E: Display`"
)]
pub trait IntoResourceContents {
    /// The contents, or why the read failed.
    fn into_resource_contents(self) -> Result<Vec<ResourceContents>, ResourceError>;
}

impl IntoResourceContents for String {
    fn into_resource_contents(self) -> Result<Vec<ResourceContents>, ResourceError> {
        Ok(vec![ResourceContents::text(self)])
    }
}

impl IntoResourceContents for &'static str {
    fn into_resource_contents(self) -> Result<Vec<ResourceContents>, ResourceError> {
        Ok(vec![ResourceContents::text(self)])
    }
}

impl IntoResourceContents for Cow<'static, str> {
    fn into_resource_contents(self) -> Result<Vec<ResourceContents>, ResourceError> {
        Ok(vec![ResourceContents::text(self)])
    }
}

impl IntoResourceContents for Vec<u8> {
    fn into_resource_contents(self) -> Result<Vec<ResourceContents>, ResourceError> {
        Ok(vec![ResourceContents::blob(self)])
    }
}

impl IntoResourceContents for ContentPart {
    fn into_resource_contents(self) -> Result<Vec<ResourceContents>, ResourceError> {
        Ok(vec![self.into()])
    }
}

impl IntoResourceContents for ResourceContents {
    fn into_resource_contents(self) -> Result<Vec<ResourceContents>, ResourceError> {
        Ok(vec![self])
    }
}

impl IntoResourceContents for Vec<ResourceContents> {
    fn into_resource_contents(self) -> Result<Vec<ResourceContents>, ResourceError> {
        Ok(self)
    }
}

impl<T: Serialize> IntoResourceContents for Json<T> {
    fn into_resource_contents(self) -> Result<Vec<ResourceContents>, ResourceError> {
        match serde_json::to_string(&self.0) {
            Ok(text) => Ok(vec![
                ResourceContents::text(text).with_mime_type("application/json"),
            ]),
            Err(error) => Err(ResourceError::failed(format!(
                "the resource's value could not be written as JSON: {error}"
            ))),
        }
    }
}

impl<T: IntoResourceContents, E: Display + 'static> IntoResourceContents for Result<T, E> {
    fn into_resource_contents(self) -> Result<Vec<ResourceContents>, ResourceError> {
        match self {
            Ok(value) => value.into_resource_contents(),
            Err(error) => Err(ResourceError::from_display(error)),
        }
    }
}

/// A value a prompt's function returns, as the prompt's messages.
///
/// - text (`String`, `&'static str`): one user message;
/// - a [`PromptMessage`], or a `Vec` of them;
/// - a [`PromptReply`] (messages and a description);
/// - `Result<T, E>` of any of these, `E: Display` (the error fails the get; a
///   [`PromptError`] is kept as it is).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a return type a #[prompt] function can have",
    label = "unsupported #[prompt] return type",
    note = "a #[prompt] function returns text (`String`, `&'static str`: one user message), `PromptMessage`, `Vec<PromptMessage>` or `PromptReply`, or a `Result<T, E>` of one of those with `E: Display`"
)]
pub trait IntoPromptReply {
    /// The messages, or why the get failed.
    fn into_prompt_reply(self) -> Result<PromptReply, PromptError>;
}

impl IntoPromptReply for String {
    fn into_prompt_reply(self) -> Result<PromptReply, PromptError> {
        Ok(PromptReply::new([PromptMessage::user(self)]))
    }
}

impl IntoPromptReply for &'static str {
    fn into_prompt_reply(self) -> Result<PromptReply, PromptError> {
        Ok(PromptReply::new([PromptMessage::user(self)]))
    }
}

impl IntoPromptReply for PromptMessage {
    fn into_prompt_reply(self) -> Result<PromptReply, PromptError> {
        Ok(PromptReply::new([self]))
    }
}

impl IntoPromptReply for Vec<PromptMessage> {
    fn into_prompt_reply(self) -> Result<PromptReply, PromptError> {
        Ok(PromptReply::new(self))
    }
}

impl IntoPromptReply for PromptReply {
    fn into_prompt_reply(self) -> Result<PromptReply, PromptError> {
        Ok(self)
    }
}

impl<T: IntoPromptReply, E: Display + 'static> IntoPromptReply for Result<T, E> {
    fn into_prompt_reply(self) -> Result<PromptReply, PromptError> {
        match self {
            Ok(value) => value.into_prompt_reply(),
            Err(error) => Err(PromptError::from_display(error)),
        }
    }
}
