//! [`RejectedTool`]: a registration a [`Toolkit`](crate::Toolkit) refused, and why.

use std::fmt;

use crate::tool::Tool;

/// A registration the toolkit refused: the name was taken (the first registration wins),
/// or no provider would accept it.
#[derive(Clone)]
pub struct RejectedTool {
    pub(crate) reason: Rejection,
    pub(crate) tool: Tool,
}

/// Why a [`RejectedTool`] was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Rejection {
    /// Another tool already has the name; it is kept.
    Duplicate {
        /// Where the kept tool comes from (`"native"`, `"custom"`, …).
        kept_source: String,
    },
    /// The name breaks the providers' rule (`^[a-zA-Z0-9_-]{1,64}$`): it is empty or longer
    /// than 64 characters (every other character was already sanitized to `_`).
    InvalidName,
}

impl RejectedTool {
    /// The name the refused tool claims.
    pub fn name(&self) -> &str {
        self.tool.name()
    }

    /// Why it was refused.
    pub fn reason(&self) -> &Rejection {
        &self.reason
    }

    /// The tool that was refused.
    pub fn refused(&self) -> &Tool {
        &self.tool
    }
}

impl fmt::Display for RejectedTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (name, source) = (self.tool.name(), self.tool.source());
        match &self.reason {
            Rejection::InvalidName => write!(
                f,
                "invalid tool name `{name}` ({} characters): OpenAI and Anthropic accept 1 to 64 characters of [a-zA-Z0-9_-]; the {source} tool is ignored",
                name.len()
            ),
            Rejection::Duplicate { kept_source } => write!(
                f,
                "duplicate tool name `{name}`: the {kept_source} tool registered first is kept, the {source} one is ignored"
            ),
        }
    }
}

impl fmt::Debug for RejectedTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RejectedTool")
            .field("name", &self.name())
            .field("reason", &self.reason)
            .finish_non_exhaustive()
    }
}

impl std::error::Error for RejectedTool {}
