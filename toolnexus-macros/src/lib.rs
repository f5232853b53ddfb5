//! The `#[tool]`, `#[resource]` and `#[prompt]` attributes and the `tools!` macro of
//! [toolnexus](https://docs.rs/toolnexus). Use them through `toolnexus::tool` and
//! `toolnexus::tools`; this crate is an implementation detail.
//!
//! The macro is a small pipeline: `attr` parses `#[tool(…)]`, `ast` reads the function,
//! `valid` checks the rules across both (collecting every error), and `expand` emits
//! the code, which leans on traits in `toolnexus` for everything type-dependent.

#![forbid(unsafe_code)]
#![warn(unreachable_pub)]

use proc_macro::TokenStream;
use quote::ToTokens;
use syn::punctuated::Punctuated;
use syn::{Item, Path, Token};

mod ast;
mod attr;
mod call;
mod expand;
mod primitive;
mod symbol;
mod template;
mod toolset;
mod valid;

/// Turns a function into a toolnexus tool. Documented on `toolnexus::tool`.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    let item = match syn::parse::<Item>(item.clone()) {
        Ok(Item::Fn(item)) => item,
        // Anything else is left as written, so only this one error shows.
        Ok(other) => return with_error(item, not_a_function(&other)),
        Err(e) => return with_error(item, e),
    };
    let mut errors = Vec::new();
    let attr = attr::ToolAttr::parse(args.into(), &mut errors);
    let model = ast::ToolFn::from_syn(&item);
    valid::check(&attr, &model, valid::Place::Free, &mut errors);
    for input in &item.sig.inputs {
        if let syn::FnArg::Typed(typed) = input
            && let Some(complete) = typed
                .attrs
                .iter()
                .find(|a| a.path().is_ident(symbol::COMPLETE))
        {
            errors.push(syn::Error::new_spanned(
                complete,
                "`#[complete]` is for the arguments of a #[prompt] and the variables of a \
                 #[resource]: a tool's arguments are not completed; remove it",
            ));
        }
    }
    let self_ty = find_self_type(item.sig.to_token_stream(), false)
        .or_else(|| find_self_type(item.block.to_token_stream(), true));
    if item.sig.receiver().is_none()
        && let Some(self_ty) = &self_ty
    {
        // Only an associated function can name `Self`: this one sits in an `impl` block.
        errors.push(syn::Error::new(
            self_ty.span(),
            "#[tool] on an associated function (it names `Self`) needs `#[toolset]` on its \
             impl block: write `#[toolset]` above `impl …`, then register the block's tools \
             with `Toolkit::with_toolset(value)`",
        ));
    }
    match errors.into_iter().reduce(|mut all, e| {
        all.combine(e);
        all
    }) {
        None => expand::expand(&attr, &model).into(),
        Some(all) => {
            expand::fallback(&attr, &item, all.to_compile_error(), self_ty.is_some()).into()
        }
    }
}

/// The first `Self` token in `tokens`, at any depth; in a function body (`in_body`),
/// outside the `impl` and `trait` blocks nested in it (where `Self` is theirs).
pub(crate) fn find_self_type(
    tokens: proc_macro2::TokenStream,
    in_body: bool,
) -> Option<proc_macro2::Ident> {
    use proc_macro2::{Delimiter, TokenTree};
    let mut in_nested_block_head = false;
    for token in tokens {
        match token {
            TokenTree::Ident(ident) if in_body && (ident == "impl" || ident == "trait") => {
                in_nested_block_head = true;
            }
            TokenTree::Ident(ident) if ident == "Self" && !in_nested_block_head => {
                return Some(ident);
            }
            TokenTree::Group(group)
                if group.delimiter() == Delimiter::Brace && in_nested_block_head =>
            {
                in_nested_block_head = false;
            }
            TokenTree::Group(group) if !in_nested_block_head => {
                if let Some(found) = find_self_type(group.stream(), in_body) {
                    return Some(found);
                }
            }
            _ => {}
        }
    }
    None
}

/// The item as written, followed by `error`.
fn with_error(item: TokenStream, error: syn::Error) -> TokenStream {
    let mut out = proc_macro2::TokenStream::from(item);
    out.extend(error.to_compile_error());
    out.into()
}

/// `#[tool]` on a struct, an enum, a `mod`…: the error points at the item's keyword and
/// name, and says what the item is.
fn not_a_function(item: &Item) -> syn::Error {
    let (what, head) = describe(item);
    syn::Error::new_spanned(
        head,
        format!("#[tool] goes on a function (`fn` or `async fn`), not on {what}"),
    )
}

/// What an item is ("a struct"), and its keyword and name, for errors about it.
pub(crate) fn describe(item: &Item) -> (&'static str, proc_macro2::TokenStream) {
    fn head(keyword: impl ToTokens, name: impl ToTokens) -> proc_macro2::TokenStream {
        quote::quote!(#keyword #name)
    }
    let (what, head) = match item {
        Item::Struct(i) => ("a struct", head(i.struct_token, &i.ident)),
        Item::Enum(i) => ("an enum", head(i.enum_token, &i.ident)),
        Item::Union(i) => ("a union", head(i.union_token, &i.ident)),
        Item::Trait(i) => ("a trait", head(i.trait_token, &i.ident)),
        Item::Mod(i) => ("a module", head(i.mod_token, &i.ident)),
        Item::Const(i) => ("a const", head(i.const_token, &i.ident)),
        Item::Static(i) => ("a static", head(i.static_token, &i.ident)),
        Item::Type(i) => ("a type alias", head(i.type_token, &i.ident)),
        Item::Impl(i) => ("an impl block", head(i.impl_token, &i.self_ty)),
        Item::Use(i) => ("a `use`", head(i.use_token, &i.tree)),
        other => ("this item", other.to_token_stream()),
    };
    (what, head)
}

/// Turns the `#[tool]` methods of an impl block into tools bound to a value. Documented
/// on `toolnexus::toolset`.
#[proc_macro_attribute]
pub fn toolset(args: TokenStream, item: TokenStream) -> TokenStream {
    toolset::expand(args.into(), item.into()).into()
}

/// Turns a function into an MCP resource. Documented on `toolnexus::resource`.
#[proc_macro_attribute]
pub fn resource(args: TokenStream, item: TokenStream) -> TokenStream {
    primitive::expand(symbol::Kind::Resource, args.into(), item.into()).into()
}

/// Turns a function into an MCP prompt. Documented on `toolnexus::prompt`.
#[proc_macro_attribute]
pub fn prompt(args: TokenStream, item: TokenStream) -> TokenStream {
    primitive::expand(symbol::Kind::Prompt, args.into(), item.into()).into()
}

/// `tools![f, module::g]` → `vec![f::tool(), module::g::tool()]`. Documented on
/// `toolnexus::tools`.
#[proc_macro]
pub fn tools(input: TokenStream) -> TokenStream {
    gather(input, "tool")
}

/// `resources![f, g]` → `vec![f::resource(), g::resource()]`. Documented on
/// `toolnexus::resources`.
#[proc_macro]
pub fn resources(input: TokenStream) -> TokenStream {
    gather(input, "resource")
}

/// `prompts![f, g]` → `vec![f::prompt(), g::prompt()]`. Documented on `toolnexus::prompts`.
#[proc_macro]
pub fn prompts(input: TokenStream) -> TokenStream {
    gather(input, "prompt")
}

fn gather(input: TokenStream, constructor: &str) -> TokenStream {
    let paths =
        match syn::parse::Parser::parse(Punctuated::<Path, Token![,]>::parse_terminated, input) {
            Ok(paths) => paths,
            Err(e) => return e.to_compile_error().into(),
        };
    let constructor = proc_macro2::Ident::new(constructor, proc_macro2::Span::call_site());
    let calls = paths
        .iter()
        .map(|path| quote::quote!(#path::#constructor()));
    quote::quote!(::std::vec![#(#calls),*]).into()
}
