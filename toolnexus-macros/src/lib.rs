//! The `#[tool]` attribute and the `tools!` macro of
//! [toolnexus](https://docs.rs/toolnexus). Use them through `toolnexus::tool` and
//! `toolnexus::tools`; this crate is an implementation detail.
//!
//! The macro is a small pipeline: `attr` parses `#[tool(…)]`, `ast` reads the function,
//! `valid` checks the rules across both (collecting every error), and `expand` emits
//! the code, which leans on traits in `toolnexus` for everything type-dependent.

#![forbid(unsafe_code)]
#![warn(unreachable_pub)]

use proc_macro::TokenStream;
use syn::punctuated::Punctuated;
use syn::{ItemFn, Path, Token};

mod ast;
mod attr;
mod expand;
mod symbol;
mod valid;

/// Turns a function into a toolnexus tool. Documented on `toolnexus::tool`.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    let item = match syn::parse::<ItemFn>(item) {
        Ok(item) => item,
        Err(e) => {
            let mut e = e.to_compile_error();
            e.extend([syn::Error::new(
                proc_macro2::Span::call_site(),
                "#[tool] goes on a function (`fn` or `async fn`)",
            )
            .to_compile_error()]);
            return e.into();
        }
    };
    let mut errors = Vec::new();
    let attr = attr::ToolAttr::parse(args.into(), &mut errors);
    let model = ast::ToolFn::from_syn(&item);
    valid::check(&attr, &model, &mut errors);
    match errors.into_iter().reduce(|mut all, e| {
        all.combine(e);
        all
    }) {
        None => expand::expand(&attr, &model).into(),
        Some(all) => expand::fallback(&attr, &item, all.to_compile_error()).into(),
    }
}

/// `tools![f, module::g]` → `vec![f::tool(), module::g::tool()]`. Documented on
/// `toolnexus::tools`.
#[proc_macro]
pub fn tools(input: TokenStream) -> TokenStream {
    let paths =
        match syn::parse::Parser::parse(Punctuated::<Path, Token![,]>::parse_terminated, input) {
            Ok(paths) => paths,
            Err(e) => return e.to_compile_error().into(),
        };
    let calls = paths.iter().map(|path| quote::quote!(#path::tool()));
    quote::quote!(::std::vec![#(#calls),*]).into()
}
