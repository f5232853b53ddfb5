//! Distributed registration: every `#[tool]` function submits itself here, and
//! [`Toolkit::registered`](crate::Toolkit::registered) collects them all.

use crate::tool::Tool;

/// One `#[tool]` function's entry in the program-wide registry. Made by the macro.
#[doc(hidden)]
pub struct Registration {
    make: fn() -> Tool,
}

impl Registration {
    /// An entry that builds its tool with `make`.
    pub const fn new(make: fn() -> Tool) -> Self {
        Registration { make }
    }

    pub(crate) fn tool(&self) -> Tool {
        (self.make)()
    }
}

inventory::collect!(Registration);
