//! [`TranslateError`]: why a translation gave no result.

use std::error::Error as StdError;
use std::fmt;

use crate::model::ModelError;

/// Why [`translate`](super::translate) gave no result.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum TranslateError {
    /// The request cannot be translated; nothing was sent.
    Request {
        /// Where in the request, as a path (`messages[2].tool_calls[0].id`, `tools[1]`,
        /// `tool_choice`).
        at: String,
        /// What is wrong there, and what would do.
        message: String,
    },
    /// The model gave no turn: a setting it cannot honour (refused before anything is
    /// sent), a network failure, an error response.
    Model(ModelError),
    /// A hook panicked; the message says which.
    Hook(String),
}

impl TranslateError {
    /// A request error at `at`.
    pub(crate) fn at(at: impl Into<String>, message: impl Into<String>) -> Self {
        TranslateError::Request {
            at: at.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for TranslateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TranslateError::Request { at, message } => {
                write!(f, "translate: {at}: {message} (nothing was sent)")
            }
            TranslateError::Model(error) => write!(f, "translate: {error}"),
            TranslateError::Hook(what) => write!(f, "translate: {what}"),
        }
    }
}

impl StdError for TranslateError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        match self {
            TranslateError::Model(error) => Some(error),
            _ => None,
        }
    }
}

impl From<ModelError> for TranslateError {
    fn from(error: ModelError) -> Self {
        TranslateError::Model(error)
    }
}
