//! Code generation: the user's function (unchanged but for the parameter attributes the
//! macro consumed), a companion `NAME::tool()` constructor, and the registration.
//!
//! The generated code is small on purpose: an argument struct deriving `JsonSchema`
//! (generic over the parameter types, so that a type that cannot be a parameter is
//! reported once, on the user's type), a closure that calls the function with the parsed
//! arguments, and a once-built `Tool`. The arguments are read as a tuple of the parameter
//! types with their names (`toolnexus`'s `Params`, whose reader is compiled once per list
//! of types, not once per tool); parameters with `#[serde]` attributes, and `#[args]`,
//! keep the struct deriving `Deserialize` too, and are read into it. Reading the arguments
//! is `toolnexus`'s job; what a return type means is left to the `IntoToolResult` trait.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{FnArg, Ident, ItemFn};

use crate::ast::{Param, Role, ToolFn};
use crate::attr::ToolAttr;
use crate::symbol;

/// The whole expansion for a valid function.
pub(crate) fn expand(attr: &ToolAttr, tool: &ToolFn<'_>) -> TokenStream {
    let krate = krate(attr);
    let item = tool.item;
    let fn_ident = &item.sig.ident;
    let (name, description) = named(tool, attr.name.as_ref(), attr.description.as_ref());

    let args_ty = Ident::new("__ToolnexusArgs", Span::mixed_site());
    let parsed = Ident::new("__parsed", Span::mixed_site());
    let ctx_var = Ident::new("__ctx", Span::mixed_site());
    let fields = fields(tool);
    let tuple = tuple_mode(&fields);
    let args_def = args_def(&krate, &fields, &args_ty, tuple);

    let Route {
        generics,
        params: generic_params,
        args: generic_args,
        turbofish,
        checks: concrete_checks,
    } = route(&krate, &fields, quote!(ToolParam), quote!(assert_param));

    let names = crate::call::Names {
        parsed: parsed.clone(),
        ctx: ctx_var.clone(),
        tuple,
        ..crate::call::Names::new()
    };
    let (parsed_ty, builder) = if tuple {
        let keys = keys(&fields);
        (
            quote!((#(#generics,)*)),
            quote!(#krate::__private::params_tool::<#args_ty #generic_args, _>(#name, #description, &[#(#keys),*], call)),
        )
    } else {
        (
            quote!(#args_ty #generic_args),
            quote!(#krate::__private::native_tool(#name, #description, call)),
        )
    };
    let dispatch = crate::call::body(&krate, &name, tool, quote!(#fn_ident), &names);
    let ctx_param = if crate::call::uses_ctx(tool) {
        quote!(#ctx_var)
    } else {
        quote!(_)
    };
    let state_types = crate::call::state_types(&krate, tool);
    let with_output = crate::call::with_output(&krate, tool, quote!(tool));
    let approved = crate::call::with_approval(
        &krate,
        attr,
        quote!(#krate::__private::require_states(#with_output, #state_types)),
    );

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

                fn build_tool #generic_params(
                    call: fn(#parsed_ty, #krate::Context) -> #krate::dispatch::Dispatch,
                ) -> #krate::Tool {
                    #builder
                }

                static TOOL: #krate::__private::OnceLock<#krate::Tool> =
                    #krate::__private::OnceLock::new();
                #krate::__private::cached(&TOOL, || {
                    let tool = build_tool #turbofish(|#parsed, #ctx_param| {
                        #(#concrete_checks)*
                        #dispatch
                    });
                    #approved
                })
            }
        }

        #krate::__private::inventory::submit! {
            #krate::__private::Registration::at(
                #fn_ident::tool,
                ::core::concat!(::core::module_path!(), "::", ::core::stringify!(#fn_ident)),
            )
        }
    }
}

/// The name and description the attribute gives (`name = "…"`, `description = "…"`), or
/// else the function's name (without `r#`) and its doc comment.
pub(crate) fn named(
    model: &ToolFn<'_>,
    name: Option<&syn::LitStr>,
    description: Option<&syn::LitStr>,
) -> (String, String) {
    let name = match name {
        Some(lit) => lit.value(),
        None => (model.item.sig.ident.to_string())
            .trim_start_matches("r#")
            .to_owned(),
    };
    let description = match description {
        Some(lit) => lit.value(),
        None => model.doc_text(),
    };
    (name, description)
}

/// The generic route of a function's parameters (see `ToolParam` in toolnexus): the
/// builder takes each parameter type as a generic bounded by `bound` (a trait of
/// `__private`), and is called with the user's types, so a type that does not fit is
/// reported once, on that type. A parameter kept concrete (for its `#[serde]`
/// attributes) is checked on its own, by `assert::<T>()`.
pub(crate) struct Route<'f> {
    /// The generics, in order.
    pub(crate) generics: Vec<&'f Ident>,
    /// `<G0: bound, …>`, or nothing.
    pub(crate) params: TokenStream,
    /// `<G0, …>`, or nothing.
    pub(crate) args: TokenStream,
    /// `::<T0, …>` with the user's types, or nothing.
    pub(crate) turbofish: TokenStream,
    /// One `assert::<T>();` per concrete parameter.
    pub(crate) checks: Vec<TokenStream>,
}

pub(crate) fn route<'f>(
    krate: &syn::Path,
    fields: &'f [Field<'_, '_>],
    bound: TokenStream,
    assert: TokenStream,
) -> Route<'f> {
    let generics: Vec<&Ident> = fields.iter().filter_map(|f| f.generic.as_ref()).collect();
    let bounds = fields.iter().filter_map(|f| {
        let (generic, ty) = (f.generic.as_ref()?, f.param.ty?);
        Some(quote_spanned! {ty.span()=> #generic: #krate::__private::#bound })
    });
    let types = fields
        .iter()
        .filter(|f| f.generic.is_some())
        .filter_map(|f| f.param.ty);
    let (params, args, turbofish) = if generics.is_empty() {
        (quote!(), quote!(), quote!())
    } else {
        (
            quote!(<#(#bounds),*>),
            quote!(<#(#generics),*>),
            quote!(::<#(#types),*>),
        )
    };
    let checks = fields
        .iter()
        .filter(|f| f.generic.is_none())
        .filter_map(|f| f.param.ty)
        .map(|ty| quote_spanned! {ty.span()=> #krate::__private::#assert::<#ty>(); })
        .collect();
    Route {
        generics,
        params,
        args,
        turbofish,
        checks,
    }
}

/// A parameter that takes part in the argument object.
pub(crate) struct Field<'p, 'a> {
    pub(crate) param: &'p Param<'a>,
    /// The struct's type parameter standing for the parameter's type; `None` keeps the
    /// concrete type, which `#[serde]`/`#[schemars]` attributes on the parameter may need
    /// (`default`, `with`, … are written for that type).
    pub(crate) generic: Option<Ident>,
}

pub(crate) fn fields<'p, 'a>(tool: &'p ToolFn<'a>) -> Vec<Field<'p, 'a>> {
    tool.params
        .iter()
        .filter(|p| matches!(p.role, Role::Schema | Role::WholeArgs))
        .enumerate()
        .map(|(i, param)| {
            let attributed = param.forwarded.iter().any(|a| !a.path().is_ident("doc"));
            let generic = (param.role == Role::WholeArgs || !attributed)
                .then(|| Ident::new(&format!("__T{i}"), Span::mixed_site()));
            Field { param, generic }
        })
        .collect()
}

/// Whether the parameters are read as a tuple with their names (`toolnexus`'s `Params`),
/// the argument struct then deriving only its schema: when no parameter carries
/// `#[serde]`/`#[schemars]` attributes or is `#[args]`, and there are at most 12 (the
/// tuples `Params` is implemented for). The reader of a tuple is compiled once per list of
/// parameter types, where a derived struct's would be compiled once per tool.
pub(crate) fn tuple_mode(fields: &[Field<'_, '_>]) -> bool {
    fields.len() <= 12
        && fields
            .iter()
            .all(|f| f.generic.is_some() && f.param.role == Role::Schema && f.param.ident.is_some())
}

/// The names of the parameters as serde names the fields (`r#type` is `"type"`).
pub(crate) fn keys(fields: &[Field<'_, '_>]) -> Vec<String> {
    use syn::ext::IdentExt;
    fields
        .iter()
        .filter_map(|f| Some(f.param.ident?.unraw().to_string()))
        .collect()
}

/// The argument struct, generic over the parameter types (one field per parameter), or
/// for `#[args]` an alias of that parameter's type.
pub(crate) fn args_def(
    krate: &syn::Path,
    fields: &[Field<'_, '_>],
    args_ty: &Ident,
    tuple: bool,
) -> TokenStream {
    let generics: Vec<&Ident> = fields.iter().filter_map(|f| f.generic.as_ref()).collect();
    let generics = (!generics.is_empty()).then(|| quote!(<#(#generics),*>));
    if let [whole] = fields
        && whole.param.role == Role::WholeArgs
    {
        return quote!(type #args_ty #generics = __T0;);
    }
    let krate_str = quote!(#krate).to_string();
    let serde_crate = format!("{krate_str}::__private::serde");
    let schemars_crate = format!("{krate_str}::__private::schemars");
    let fields = fields.iter().map(|f| {
        let ident = f.param.ident;
        let ty = match (&f.generic, f.param.ty) {
            (Some(generic), _) => quote!(#generic),
            (None, ty) => quote!(#ty),
        };
        let forwarded = f
            .param
            .forwarded
            .iter()
            .filter(|a| !a.path().is_ident("doc"));
        let doc = f.param.doc_text();
        let description = (!doc.is_empty()).then(|| quote!(#[schemars(description = #doc)]));
        quote! { #(#forwarded)* #description #ident: #ty, }
    });
    if tuple {
        // Only the schema: the arguments are read as a tuple. `deny_unknown_fields` is
        // for schemars, which reads it (`additionalProperties: false`).
        return quote! {
            #[derive(#krate::__private::schemars::JsonSchema)]
            #[serde(crate = #serde_crate, deny_unknown_fields)]
            #[schemars(crate = #schemars_crate)]
            #[allow(dead_code)]
            struct #args_ty #generics { #(#fields)* }
        };
    }
    quote! {
        #[derive(#krate::__private::serde::Deserialize, #krate::__private::schemars::JsonSchema)]
        #[serde(crate = #serde_crate, deny_unknown_fields)]
        #[schemars(crate = #schemars_crate)]
        struct #args_ty #generics { #(#fields)* }
    }
}

/// The user's function as written, minus the parameter attributes the macro consumed
/// (`///` docs, `#[serde]`, `#[schemars]`, `#[args]`, `#[context]`, `#[complete]`), which
/// rustc would otherwise reject on a function parameter.
pub(crate) fn original(item: &ItemFn) -> TokenStream {
    let mut item = item.clone();
    for input in &mut item.sig.inputs {
        if let FnArg::Typed(typed) = input {
            typed.attrs.retain(|a| {
                let consumed = symbol::FORWARDED.iter().any(|n| a.path().is_ident(n))
                    || a.path().is_ident(symbol::ARGS)
                    || a.path().is_ident(symbol::CONTEXT)
                    || a.path().is_ident(symbol::COMPLETE);
                !consumed
            });
        }
    }
    quote!(#item)
}

/// What is emitted when the function breaks a rule: the function itself (so the rest of
/// the crate and the IDE still see it), a `NAME::tool()` that type-checks (so callers do
/// not cascade into more errors), and the errors.
///
/// A method (a function with a `self` receiver, or one naming `Self`) sits in an `impl`
/// block, where no companion struct can go, so it gets the errors alone.
pub(crate) fn fallback(
    attr: &ToolAttr,
    item: &ItemFn,
    errors: TokenStream,
    in_impl: bool,
) -> TokenStream {
    let cleaned = original(item);
    if in_impl || item.sig.receiver().is_some() {
        return quote!(#cleaned #errors);
    }
    let krate = krate(attr);
    let fn_ident = &item.sig.ident;
    let vis = &item.vis;
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

pub(crate) fn krate(attr: &ToolAttr) -> syn::Path {
    attr.krate
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(::toolnexus))
}
