//! The `#[tool]` attribute of [toolnexus](https://docs.rs/toolnexus).
//!
//! Use it through `toolnexus::tool`; this crate is an implementation detail.

use proc_macro::TokenStream;

/// Turns a function into a toolnexus tool. See `toolnexus::tool`.
#[proc_macro_attribute]
pub fn tool(_attr: TokenStream, item: TokenStream) -> TokenStream {
    item
}
