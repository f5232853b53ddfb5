//! The code a valid `#[resource]` or `#[prompt]` becomes (a `NAME::resource()` /
//! `NAME::prompt()` constructor and a registration), and what an invalid one leaves: the
//! function as written, a constructor that type-checks, and the errors.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, ItemFn, LitStr};

use super::attr::{Complete, ItemAttr};
use super::valid::is_primitive;
use crate::ast::ToolFn;
use crate::expand::{self, Field};
use crate::symbol::Kind;

/// The expansion for a valid function.
pub(super) fn expansion(
    kind: Kind,
    attr: &ItemAttr,
    model: &ToolFn<'_>,
    completes: &[(String, Complete)],
) -> TokenStream {
    let krate = krate(attr);
    let item = model.item;
    let fn_ident = &item.sig.ident;
    let (name, description) = expand::named(model, attr.name.as_ref(), attr.description.as_ref());
    let title = option(attr.title.as_ref());

    let args_ty = Ident::new("__ToolnexusArgs", Span::mixed_site());
    let parsed = Ident::new("__parsed", Span::mixed_site());
    let ctx_var = Ident::new("__ctx", Span::mixed_site());
    let fields: Vec<Field<'_, '_>> = expand::fields(model);
    let tuple = expand::tuple_mode(&fields);
    let args_def = expand::args_def(&krate, &fields, &args_ty, tuple);
    let (bound, assert) = match kind {
        Kind::Resource => (quote!(ResourceParam), quote!(assert_resource_param)),
        _ => (quote!(PromptParam), quote!(assert_prompt_param)),
    };
    let expand::Route {
        generics,
        params: generic_params,
        args: generic_args,
        turbofish,
        checks: concrete_checks,
    } = expand::route(&krate, &fields, bound, assert);
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

/// What an invalid function expands to: [`fallback`], without a second `#[tool]`,
/// `#[resource]` or `#[prompt]` on it (it is not expanded as well, so that its error
/// stands alone).
pub(super) fn invalid(
    kind: Kind,
    attr: &ItemAttr,
    item: &ItemFn,
    errors: TokenStream,
) -> TokenStream {
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
    let mut out = fallback(kind, attr, &item, errors);
    out.extend(uses);
    out
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
