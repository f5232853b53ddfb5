//! [`TranslateError`]: why a translation gave no result.

use crate::model::ModelError;

/// Why [`translate`](super::translate) gave no result.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum TranslateError {
    /// The request cannot be translated; nothing was sent.
    #[error("translate: {at}: {message} (nothing was sent)")]
    Request {
        /// Where in the request, as a path (`messages[2].tool_calls[0].id`, `tools[1]`,
        /// `tool_choice`).
        at: String,
        /// What is wrong there, and what would do.
        message: String,
    },
    /// The model gave no turn: a setting it cannot honour (refused before anything is
    /// sent), a network failure, an error response.
    #[error("translate: {0}")]
    Model(#[from] ModelError),
    /// A hook panicked; the message says which.
    #[error("translate: {0}")]
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
