//! The rules of a `#[resource]` or `#[prompt]` across its attribute and its function,
//! each broken rule an error on the user's tokens (all of them collected).

use proc_macro2::Span;
use quote::ToTokens;
use syn::{FnArg, ItemFn};

use super::attr::{self, Complete, ItemAttr};
use crate::ast::{Role, ToolFn};
use crate::symbol::{self, Kind};

/// Whether `a` is one of the attributes that make a function a tool, a resource or a
/// prompt.
pub(super) fn is_primitive(a: &syn::Attribute) -> bool {
    [symbol::TOOL, "resource", "prompt"]
        .iter()
        .any(|name| a.path().segments.last().is_some_and(|s| s.ident == name))
}

/// The rules of the function as a whole: a free function, made one kind of item only.
pub(super) fn check_item(kind: Kind, item: &ItemFn, errors: &mut Vec<syn::Error>) {
    if item.sig.receiver().is_none()
        && let Some(self_ty) = crate::find_self_type(item.sig.to_token_stream(), false)
            .or_else(|| crate::find_self_type(item.block.to_token_stream(), true))
    {
        errors.push(syn::Error::new(
            self_ty.span(),
            format!(
                "{} goes on a free function, not on an associated function (it names \
                 `Self`): move it out of the `impl` block",
                kind.attr()
            ),
        ));
    }
    for other in item.attrs.iter().filter(|a| is_primitive(a)) {
        errors.push(syn::Error::new_spanned(
            other,
            format!(
                "a function is one of a tool, a resource or a prompt: it already is a {}; \
                 write a second function that calls this one",
                &kind.attr()[2..kind.attr().len() - 1]
            ),
        ));
    }
}

/// The `#[complete(…)]` of each parameter that takes part in the arguments.
pub(super) fn completions(
    kind: Kind,
    model: &ToolFn<'_>,
    errors: &mut Vec<syn::Error>,
) -> Vec<(String, Complete)> {
    let mut found = Vec::new();
    for param in &model.params {
        let FnArg::Typed(typed) = param.arg else {
            continue;
        };
        let Some(complete) = attr::complete(&typed.attrs, errors) else {
            continue;
        };
        let marker = typed
            .attrs
            .iter()
            .find(|a| a.path().is_ident(symbol::COMPLETE));
        match (param.role, param.ident) {
            (Role::Schema, Some(ident)) => {
                use syn::ext::IdentExt;
                found.push((ident.unraw().to_string(), complete));
            }
            (Role::Schema, None) => {}
            _ => errors.push(syn::Error::new_spanned(
                marker,
                format!(
                    "`#[complete]` goes on a parameter that is one of the {}'s {}, not on an \
                     injected one",
                    &kind.attr()[2..kind.attr().len() - 1],
                    if kind == Kind::Resource {
                        "template variables"
                    } else {
                        "arguments"
                    }
                ),
            )),
        }
    }
    found
}

/// The rules of the attribute's keys, and (for a resource) of its URI against the
/// parameters.
pub(super) fn check_attr(
    kind: Kind,
    attr: &ItemAttr,
    model: &ToolFn<'_>,
    errors: &mut Vec<syn::Error>,
) {
    for lit in [&attr.name, &attr.title].into_iter().flatten() {
        if lit.value().trim().is_empty() {
            errors.push(syn::Error::new_spanned(
                lit,
                "this is empty: write a value, or leave the key out",
            ));
        }
    }
    if let Some(mime) = &attr.mime_type {
        let value = mime.value();
        let parts: Vec<&str> = value.split('/').collect();
        let token =
            |s: &str| !s.is_empty() && !s.contains(|c: char| c.is_whitespace() || c.is_control());
        if parts.len() != 2 || !token(parts[0]) || !token(parts[1].split(';').next().unwrap_or(""))
        {
            errors.push(syn::Error::new_spanned(
                mime,
                format!(
                    "`{value}` is not a MIME type: write `type/subtype`, e.g. `text/markdown` \
                     or `application/json`"
                ),
            ));
        }
    }
    if let Some(args) = model.params.iter().find(|p| p.role == Role::WholeArgs)
        && kind == Kind::Resource
    {
        errors.push(syn::Error::new_spanned(
            args.marker,
            "`#[args]` does not fit a resource: each parameter is one variable of the URI \
             template; take them one by one",
        ));
    }
    if kind != Kind::Resource {
        return;
    }
    let Some(uri) = &attr.uri else {
        errors.push(syn::Error::new(
            Span::call_site(),
            "#[resource] needs the resource's URI: `#[resource(uri = \"docs://readme\")]`, or \
             a template whose `{variables}` are the function's parameters: \
             `#[resource(uri = \"users://{id}/profile\")]`",
        ));
        return;
    };
    let variables = match crate::template::variables(&uri.value()) {
        Ok(variables) => variables,
        Err(why) => {
            errors.push(syn::Error::new_spanned(
                uri,
                format!("invalid resource URI `{}`: {why}", uri.value()),
            ));
            return;
        }
    };
    let params: Vec<(String, &FnArg)> = model
        .params
        .iter()
        .filter(|p| p.role == Role::Schema)
        .filter_map(|p| {
            use syn::ext::IdentExt;
            Some((p.ident?.unraw().to_string(), p.arg))
        })
        .collect();
    for variable in &variables {
        if !params.iter().any(|(name, _)| name == variable) {
            errors.push(syn::Error::new_spanned(
                uri,
                format!(
                    "the URI template's variable `{{{variable}}}` is not a parameter of the \
                     function: add a parameter `{variable}: String` (or of any type its text \
                     parses as)"
                ),
            ));
        }
    }
    for (name, arg) in &params {
        if !variables.contains(name) {
            let fix = if variables.is_empty() {
                format!(
                    "a fixed URI takes no parameters: make it a template with `{{{name}}}` in \
                     it, or remove the parameter"
                )
            } else {
                format!("put `{{{name}}}` in the URI template, or remove the parameter")
            };
            errors.push(syn::Error::new_spanned(
                arg,
                format!("the parameter `{name}` is not a variable of the URI template: {fix}"),
            ));
        }
    }
}
