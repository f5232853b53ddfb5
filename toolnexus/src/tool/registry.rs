//! Distributed registration: every `#[tool]` function submits itself here, and
//! [`Toolkit::registered`](crate::Toolkit::registered) collects them all.

use crate::tool::Tool;

/// One `#[tool]` function's entry in the program-wide registry. Made by the macro.
#[doc(hidden)]
pub struct Registration {
    make: fn() -> Tool,
    /// The function's Rust path, which orders registrations of one name.
    path: &'static str,
}

impl Registration {
    /// An entry that builds its tool with `make`.
    pub const fn new(make: fn() -> Tool) -> Self {
        Registration { make, path: "" }
    }

    /// An entry that builds its tool with `make`, for the function at `path`.
    pub const fn at(make: fn() -> Tool, path: &'static str) -> Self {
        Registration { make, path }
    }

    pub(crate) fn path(&self) -> &'static str {
        self.path
    }

    pub(crate) fn tool(&self) -> Tool {
        (self.make)()
    }
}

inventory::collect!(Registration);
