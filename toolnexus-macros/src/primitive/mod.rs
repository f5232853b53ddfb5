//! `#[resource]` and `#[prompt]`: the same `attr` → `ast` → `valid` → `expand` pipeline
//! as `#[tool]`, ending in a `NAME::resource()` / `NAME::prompt()` constructor and a
//! registration. The parameters are the template's variables or the prompt's arguments,
//! read by `#[tool]`'s own `ast`; everything type-dependent is left to traits in
//! `toolnexus`.

mod attr;
mod expand;
mod valid;

use proc_macro2::TokenStream;
use syn::Item;

use crate::ast::ToolFn;
use crate::symbol::Kind;
use crate::valid::Place;
use attr::ItemAttr;

/// The whole expansion of `#[resource(args)] item` or `#[prompt(args)] item`.
pub(crate) fn expand(kind: Kind, args: TokenStream, item: TokenStream) -> TokenStream {
    let item = match syn::parse2::<Item>(item.clone()) {
        Ok(Item::Fn(item)) => item,
        Ok(other) => {
            let what = crate::describe(&other);
            let error = syn::Error::new_spanned(
                what.1,
                format!(
                    "{} goes on a function (`fn` or `async fn`), not on {}",
                    kind.attr(),
                    what.0
                ),
            );
            return with_error(item, error);
        }
        Err(e) => return with_error(item, e),
    };
    let mut errors = Vec::new();
    let attr = ItemAttr::parse(kind, args, &mut errors);
    let model = ToolFn::from_syn(&item);
    crate::valid::check_signature(kind, &model, Place::Free, &mut errors);
    let completes = valid::completions(kind, &model, &mut errors);
    valid::check_attr(kind, &attr, &model, &mut errors);
    valid::check_item(kind, &item, &mut errors);
    match errors.into_iter().reduce(|mut all, e| {
        all.combine(e);
        all
    }) {
        None => expand::expansion(kind, &attr, &model, &completes),
        Some(all) => expand::invalid(kind, &attr, &item, all.to_compile_error()),
    }
}

fn with_error(item: TokenStream, error: syn::Error) -> TokenStream {
    let mut out = item;
    out.extend(error.to_compile_error());
    out
}
