//! Code generation: the user's function (unchanged but for the parameter attributes the
//! macro consumed), a companion `NAME::tool()` constructor, and the registration.
//!
//! The generated code is small on purpose: an argument struct deriving `Deserialize` and
//! `JsonSchema`, a handler that parses it and calls the function, and a once-built `Tool`.
//! What a return type means is left to the `IntoToolResult` trait in `toolnexus`.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{FnArg, Ident, ItemFn, ReturnType};

use crate::ast::{Role, ToolFn};
use crate::attr::ToolAttr;
use crate::symbol;

/// The whole expansion for a valid function.
pub(crate) fn expand(attr: &ToolAttr, tool: &ToolFn<'_>) -> TokenStream {
    let krate = krate(attr);
    let item = tool.item;
    let fn_ident = &item.sig.ident;
    let name = match &attr.name {
        Some(lit) => lit.value(),
        None => fn_ident.to_string().trim_start_matches("r#").to_owned(),
    };
    let description = match &attr.description {
        Some(lit) => lit.value(),
        None => tool.doc_text(),
    };

    let args_ty = Ident::new("__ToolnexusArgs", Span::mixed_site());
    let args_var = Ident::new("__args", Span::mixed_site());
    let ctx_var = Ident::new("__ctx", Span::mixed_site());
    let result_var = Ident::new("__result", Span::mixed_site());

    let args_def = args_struct(&krate, tool, &args_ty);
    let (bind, call_args) = bindings(&krate, &name, tool, &args_ty, &ctx_var);
    let ret_span = match &item.sig.output {
        ReturnType::Type(_, ty) => ty.span(),
        ReturnType::Default => item.sig.paren_token.span.close(),
    };
    let convert = quote_spanned! {ret_span=> #krate::__private::into_result(#result_var) };
    let dispatch = if item.sig.asyncness.is_some() {
        quote! {
            #krate::__private::boxed(async move {
                let #result_var = #fn_ident(#(#call_args),*).await;
                #convert
            })
        }
    } else {
        quote! {
            let #result_var = #fn_ident(#(#call_args),*);
            #krate::__private::ready(#convert)
        }
    };
    let uses_ctx = tool
        .params
        .iter()
        .any(|p| matches!(p.role, Role::Context { .. }));
    let ctx_param = if uses_ctx {
        quote!(#ctx_var)
    } else {
        quote!(_)
    };

    let param_checks = tool.schema_params().filter_map(|p| p.ty).map(|ty| {
        quote_spanned! {ty.span()=> let _ = #krate::__private::assert_param::<#ty>; }
    });

    let vis = &item.vis;
    let doc = format!(
        "The toolnexus tool made from the function `{fn_ident}`: `{fn_ident}::tool()` returns it."
    );
    let cleaned = original(item);
    quote! {
        #cleaned

        #[doc = #doc]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #fn_ident {}

        #[automatically_derived]
        impl #fn_ident {
            /// Returns the tool: its name, description and argument schema are built once,
            /// on first use, and shared by every later call.
            #vis fn tool() -> #krate::Tool {
                #args_def

                fn __toolnexus_handler(
                    #args_var: #krate::Args<'_>,
                    #ctx_param: #krate::Context,
                ) -> #krate::Dispatch {
                    #(#param_checks)*
                    #bind
                    #dispatch
                }

                static TOOL: #krate::__private::OnceLock<#krate::Tool> =
                    #krate::__private::OnceLock::new();
                TOOL.get_or_init(|| {
                    #krate::__private::native_tool(
                        #name,
                        #description,
                        #krate::__private::schema_for::<#args_ty>(),
                        __toolnexus_handler,
                    )
                })
                .clone()
            }
        }

        #krate::__private::inventory::submit! {
            #krate::__private::Registration::new(#fn_ident::tool)
        }
    }
}

/// The argument struct: one field per schema parameter, or an alias of the `#[args]` type.
fn args_struct(krate: &syn::Path, tool: &ToolFn<'_>, args_ty: &Ident) -> TokenStream {
    if let Some(whole) = tool.params.iter().find(|p| p.role == Role::WholeArgs) {
        let ty = whole.ty;
        return quote!(type #args_ty = #ty;);
    }
    let krate_str = quote!(#krate).to_string();
    let serde_crate = format!("{krate_str}::__private::serde");
    let schemars_crate = format!("{krate_str}::__private::schemars");
    let fields = tool
        .params
        .iter()
        .filter(|p| p.role == Role::Schema)
        .map(|p| {
            let ident = p.ident;
            let ty = p.ty;
            let forwarded = p.forwarded.iter().filter(|a| !a.path().is_ident("doc"));
            let doc = p.doc_text();
            let description = (!doc.is_empty()).then(|| quote!(#[schemars(description = #doc)]));
            quote! { #(#forwarded)* #description #ident: #ty, }
        });
    quote! {
        #[derive(#krate::__private::serde::Deserialize, #krate::__private::schemars::JsonSchema)]
        #[serde(crate = #serde_crate, deny_unknown_fields)]
        #[schemars(crate = #schemars_crate)]
        struct #args_ty { #(#fields)* }
    }
}

/// Parses the arguments into the struct, and lists what the call passes for each
/// parameter (a field, the whole struct, or the context).
fn bindings(
    krate: &syn::Path,
    name: &str,
    tool: &ToolFn<'_>,
    args_ty: &Ident,
    ctx_var: &Ident,
) -> (TokenStream, Vec<TokenStream>) {
    let args_var = Ident::new("__args", Span::mixed_site());
    let parsed = Ident::new("__parsed", Span::mixed_site());
    let parse = quote! {
        let #parsed: #args_ty = match #args_var.parse::<#args_ty>(#name) {
            ::core::result::Result::Ok(value) => value,
            ::core::result::Result::Err(error) => {
                return #krate::Dispatch::Ready(::core::convert::Into::into(error));
            }
        };
    };
    let call_args = tool
        .params
        .iter()
        .map(|p| match p.role {
            Role::Context { by_ref: true } => quote!(&#ctx_var),
            Role::Context { by_ref: false } => quote!(#ctx_var),
            Role::WholeArgs => quote!(#parsed),
            Role::Schema | Role::Receiver => {
                let ident = p.ident;
                quote!(#parsed.#ident)
            }
        })
        .collect();
    (parse, call_args)
}

/// The user's function as written, minus the parameter attributes the macro consumed
/// (`///` docs, `#[serde]`, `#[schemars]`, `#[args]`, `#[context]`), which rustc would
/// otherwise reject on a function parameter.
pub(crate) fn original(item: &ItemFn) -> TokenStream {
    let mut item = item.clone();
    for input in &mut item.sig.inputs {
        if let FnArg::Typed(typed) = input {
            typed.attrs.retain(|a| {
                let consumed = symbol::FORWARDED.iter().any(|n| a.path().is_ident(n))
                    || a.path().is_ident(symbol::ARGS)
                    || a.path().is_ident(symbol::CONTEXT);
                !consumed
            });
        }
    }
    quote!(#item)
}

/// What is emitted when the function breaks a rule: the function itself (so the rest of
/// the crate and the IDE still see it), a `NAME::tool()` that type-checks (so callers do
/// not cascade into more errors), and the errors.
pub(crate) fn fallback(attr: &ToolAttr, item: &ItemFn, errors: TokenStream) -> TokenStream {
    let krate = krate(attr);
    let fn_ident = &item.sig.ident;
    let vis = &item.vis;
    let cleaned = original(item);
    let doc = format!("The toolnexus tool made from the function `{fn_ident}`.");
    quote! {
        #cleaned
        #[doc = #doc]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #fn_ident {}
        impl #fn_ident {
            /// Not available: the function does not compile as a tool.
            #vis fn tool() -> #krate::Tool {
                ::core::unreachable!()
            }
        }
        #errors
    }
}

fn krate(attr: &ToolAttr) -> syn::Path {
    attr.krate
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(::toolnexus))
}
