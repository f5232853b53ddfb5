//! `#[resource]` and `#[prompt]`: the same `attr` → `ast` → `valid` → `expand` pipeline
//! as `#[tool]`, ending in a `NAME::resource()` / `NAME::prompt()` constructor and a
//! registration. The parameters are the template's variables or the prompt's arguments;
//! everything type-dependent is left to traits in `toolnexus`.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{FnArg, Ident, Item, ItemFn, LitStr};

use crate::ast::{Role, ToolFn};
use crate::expand::{self, Field};
use crate::item_attr::{self, Complete, ItemAttr};
use crate::symbol::{self, Kind};
use crate::valid::{self, Place};

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
    valid::check_signature(kind, &model, Place::Free, &mut errors);
    let completes = completions(kind, &model, &mut errors);
    check_attr(kind, &attr, &model, &mut errors);
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
    let is_primitive = |a: &syn::Attribute| {
        [symbol::TOOL, "resource", "prompt"]
            .iter()
            .any(|name| a.path().segments.last().is_some_and(|s| s.ident == name))
    };
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
    match errors.into_iter().reduce(|mut all, e| {
        all.combine(e);
        all
    }) {
        None => expansion(kind, &attr, &model, &completes),
        Some(all) => {
            // A second `#[tool]`/`#[resource]`/`#[prompt]` on the function is not expanded
            // as well, so its error stands alone.
            let mut item = item.clone();
            let removed: Vec<syn::Path> = (item.attrs.iter())
                .filter(|a| is_primitive(a))
                .map(|a| a.path().clone())
                .collect();
            item.attrs.retain(|a| !is_primitive(a));
            // Its import is used, though the attribute is not expanded.
            let uses = removed.iter().map(|path| {
                quote! { const _: () = { #[allow(unused_imports)] use #path as _; }; }
            });
            let mut out = fallback(kind, &attr, &item, all.to_compile_error());
            out.extend(uses);
            out
        }
    }
}

fn with_error(item: TokenStream, error: syn::Error) -> TokenStream {
    let mut out = item;
    out.extend(error.to_compile_error());
    out
}

/// The `#[complete(…)]` of each parameter that takes part in the arguments.
fn completions(
    kind: Kind,
    model: &ToolFn<'_>,
    errors: &mut Vec<syn::Error>,
) -> Vec<(String, Complete)> {
    let mut found = Vec::new();
    for param in &model.params {
        let FnArg::Typed(typed) = param.arg else {
            continue;
        };
        let Some(complete) = item_attr::complete(&typed.attrs, errors) else {
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
fn check_attr(kind: Kind, attr: &ItemAttr, model: &ToolFn<'_>, errors: &mut Vec<syn::Error>) {
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

/// The expansion for a valid function.
fn expansion(
    kind: Kind,
    attr: &ItemAttr,
    model: &ToolFn<'_>,
    completes: &[(String, Complete)],
) -> TokenStream {
    let krate = krate(attr);
    let item = model.item;
    let fn_ident = &item.sig.ident;
    let name = match &attr.name {
        Some(lit) => lit.value(),
        None => fn_ident.to_string().trim_start_matches("r#").to_owned(),
    };
    let description = match &attr.description {
        Some(lit) => lit.value(),
        None => model.doc_text(),
    };
    let title = option(attr.title.as_ref());

    let args_ty = Ident::new("__ToolnexusArgs", Span::mixed_site());
    let parsed = Ident::new("__parsed", Span::mixed_site());
    let ctx_var = Ident::new("__ctx", Span::mixed_site());
    let fields: Vec<Field<'_, '_>> = expand::fields(model);
    let tuple = expand::tuple_mode(&fields);
    let args_def = expand::args_def(&krate, &fields, &args_ty, tuple);
    let generics: Vec<&Ident> = fields.iter().filter_map(|f| f.generic.as_ref()).collect();
    let (param_trait, assert) = match kind {
        Kind::Resource => (quote!(ResourceParam), quote!(assert_resource_param)),
        _ => (quote!(PromptParam), quote!(assert_prompt_param)),
    };
    let bounds = fields.iter().filter_map(|f| {
        let (generic, ty) = (f.generic.as_ref()?, f.param.ty?);
        Some(quote_spanned! {ty.span()=> #generic: #krate::__private::#param_trait })
    });
    let types = fields
        .iter()
        .filter(|f| f.generic.is_some())
        .filter_map(|f| f.param.ty);
    let (generic_params, generic_args, turbofish) = if generics.is_empty() {
        (quote!(), quote!(), quote!())
    } else {
        (
            quote!(<#(#bounds),*>),
            quote!(<#(#generics),*>),
            quote!(::<#(#types),*>),
        )
    };
    let concrete_checks = fields
        .iter()
        .filter(|f| f.generic.is_none())
        .filter_map(|f| f.param.ty)
        .map(|ty| quote_spanned! {ty.span()=> #krate::__private::#assert::<#ty>(); });
    let names = crate::call::Names {
        parsed: parsed.clone(),
        ctx: ctx_var.clone(),
        tuple,
        kind,
        ..crate::call::Names::new()
    };
    let dispatch = crate::call::body(&krate, &name, model, quote!(#fn_ident), &names);
    let ctx_param = if crate::call::uses_ctx(model) {
        quote!(#ctx_var)
    } else {
        quote!(_)
    };
    let completions = completes.iter().map(|(param, complete)| match complete {
        Complete::Values(values) => {
            quote!((#param, #krate::__private::Complete::Values(&[#(#values),*])))
        }
        Complete::With(path) => {
            let request = Ident::new("__request", Span::mixed_site());
            let call = quote_spanned! {path.span()=>
                #krate::__private::completions(#path(#request))
            };
            quote!((#param, #krate::__private::Complete::With(|#request| #call)))
        }
    });
    let (spec, made, future, cached, constructor, registration, what) = match kind {
        Kind::Resource => {
            let uri = attr.uri.as_ref().map(LitStr::value).unwrap_or_default();
            let mime = option(attr.mime_type.as_ref());
            (
                quote!(#krate::__private::ResourceSpec {
                    uri: #uri,
                    name: #name,
                    title: #title,
                    description: #description,
                    mime_type: #mime,
                }),
                quote!(#krate::primitive::Resource),
                quote!(#krate::__private::ReadFuture),
                quote!(cached_resource),
                quote!(resource),
                quote!(ResourceRegistration),
                "resource",
            )
        }
        _ => (
            quote!(#krate::__private::PromptSpec {
                name: #name,
                title: #title,
                description: #description,
            }),
            quote!(#krate::primitive::Prompt),
            quote!(#krate::__private::GetFuture),
            quote!(cached_prompt),
            quote!(prompt),
            quote!(PromptRegistration),
            "prompt",
        ),
    };
    let (parsed_ty, builder) = if tuple {
        let keys = expand::keys(&fields);
        let function = Ident::new(&format!("params_{what}"), Span::call_site());
        (
            quote!((#(#generics,)*)),
            quote!(#krate::__private::#function::<#args_ty #generic_args, _>(
                #spec, &[#(#keys),*], &[#(#completions),*], call
            )),
        )
    } else {
        let function = Ident::new(&format!("native_{what}"), Span::call_site());
        (
            quote!(#args_ty #generic_args),
            quote!(#krate::__private::#function(#spec, &[#(#completions),*], call)),
        )
    };
    let vis = &item.vis;
    let doc = format!(
        "The toolnexus {what} made from the function `{fn_ident}`: `{fn_ident}::{what}()` \
         returns it."
    );
    let returns_doc =
        format!("Returns the {what}: built once, on first use, and shared by every later call.");
    let cleaned = original(item);
    quote! {
        #cleaned

        #[doc = #doc]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #fn_ident {}

        #[automatically_derived]
        impl #fn_ident {
            #[doc = #returns_doc]
            #vis fn #constructor() -> #made {
                #args_def

                fn build #generic_params(
                    call: fn(#parsed_ty, #krate::Context) -> #future,
                ) -> #made {
                    #builder
                }

                static CELL: #krate::__private::OnceLock<#made> =
                    #krate::__private::OnceLock::new();
                #krate::__private::#cached(&CELL, || {
                    build #turbofish(|#parsed, #ctx_param| {
                        #(#concrete_checks)*
                        #dispatch
                    })
                })
            }
        }

        #krate::__private::inventory::submit! {
            #krate::__private::#registration::at(
                #fn_ident::#constructor,
                ::core::concat!(::core::module_path!(), "::", ::core::stringify!(#fn_ident)),
            )
        }
    }
}

fn option(lit: Option<&LitStr>) -> TokenStream {
    match lit {
        Some(lit) => quote!(::core::option::Option::Some(#lit)),
        None => quote!(::core::option::Option::None),
    }
}

/// The function as written, minus the parameter attributes the macro consumed.
fn original(item: &ItemFn) -> TokenStream {
    expand::original(item)
}

/// The function, a `NAME::resource()` / `NAME::prompt()` that type-checks, and the errors.
fn fallback(kind: Kind, attr: &ItemAttr, item: &ItemFn, errors: TokenStream) -> TokenStream {
    let cleaned = original(item);
    if item.sig.receiver().is_some() {
        return quote!(#cleaned #errors);
    }
    let krate = krate(attr);
    let fn_ident = &item.sig.ident;
    let vis = &item.vis;
    let (constructor, made, what) = match kind {
        Kind::Resource => (
            quote!(resource),
            quote!(#krate::primitive::Resource),
            "resource",
        ),
        _ => (quote!(prompt), quote!(#krate::primitive::Prompt), "prompt"),
    };
    let doc = format!("The toolnexus {what} made from the function `{fn_ident}`.");
    quote! {
        #cleaned
        #[doc = #doc]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #fn_ident {}
        impl #fn_ident {
            /// Not available: the function does not compile as one.
            #vis fn #constructor() -> #made {
                ::core::unreachable!()
            }
        }
        #errors
    }
}

fn krate(attr: &ItemAttr) -> syn::Path {
    attr.krate
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(::toolnexus))
}
