//! `#[toolset]` on an `impl` block: each `#[tool]` function in it goes through the same
//! `attr` → `ast` → `valid` pipeline as a free `#[tool]` function, and the block gains an
//! `impl Toolset` whose `tools(this)` binds every one of them to the shared value.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Attribute, Ident, ImplItem, ImplItemFn, Item, ItemFn};

use crate::ast::ToolFn;
use crate::attr::{Approval, ToolAttr};
use crate::call::{self, Names};
use crate::expand::{self, Field};
use crate::symbol;
use crate::valid::{self, Place};

/// The whole expansion of `#[toolset(args)] item`.
pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut block = match syn::parse2::<Item>(item.clone()) {
        Ok(Item::Impl(block)) => block,
        Ok(other) => return with_error(item, not_an_impl(&other)),
        Err(e) => return with_error(item, e),
    };
    let mut errors = Vec::new();
    let attr = ToolAttr::parse(args, &mut errors);
    for (key, given) in [
        (symbol::NAME, attr.name.as_ref()),
        (symbol::DESCRIPTION, attr.description.as_ref()),
    ] {
        if let Some(lit) = given {
            errors.push(syn::Error::new_spanned(
                lit,
                format!(
                    "`{key}` belongs on each method: `#[tool({key} = \"…\")]`; #[toolset(…)] \
                     only takes `crate`"
                ),
            ));
        }
    }
    if let Some(approval) = &attr.approval {
        let tokens = match approval {
            Approval::Default(path) => path.to_token_stream(),
            Approval::Prompt(prompt) => prompt.to_token_stream(),
        };
        errors.push(syn::Error::new_spanned(
            tokens,
            "`approval` belongs on each method that needs one: `#[tool(approval)]`; \
             #[toolset(…)] only takes `crate`",
        ));
    }
    if let Some(path) = &attr.task {
        errors.push(syn::Error::new_spanned(
            path,
            "`task` belongs on each method that runs long: `#[tool(task)]`; #[toolset(…)] \
             only takes `crate`",
        ));
    }
    if let Some((_, path, _)) = &block.trait_ {
        errors.push(syn::Error::new_spanned(
            path,
            "#[toolset] goes on an inherent impl block (`impl MyType { … }`), not on a trait \
             impl: move the #[tool] methods into an `impl MyType` block",
        ));
    }

    let mut tools = Vec::new();
    // The `#[tool]` paths the block used, so that a `use toolnexus::tool` is not reported
    // unused once the attributes are consumed.
    let mut used_attrs: Vec<syn::Path> = Vec::new();
    let mut names: Vec<(String, Span)> = Vec::new();
    for impl_item in &mut block.items {
        let ImplItem::Fn(method) = impl_item else {
            continue;
        };
        let Some(position) = method.attrs.iter().position(is_tool_attr) else {
            continue;
        };
        let tool_attr = method.attrs.remove(position);
        used_attrs.push(tool_attr.path().clone());
        let args = match &tool_attr.meta {
            syn::Meta::List(list) => list.tokens.clone(),
            syn::Meta::Path(_) => TokenStream::new(),
            syn::Meta::NameValue(nv) => {
                errors.push(syn::Error::new_spanned(
                    nv,
                    "write `#[tool]` or `#[tool(name = \"…\")]`",
                ));
                TokenStream::new()
            }
        };
        let mut method_attr = ToolAttr::parse(args, &mut errors);
        if method_attr.krate.is_none() {
            method_attr.krate = attr.krate.clone();
        }
        let item = as_item_fn(method);
        let model = ToolFn::from_syn(&item);
        let before = errors.len();
        valid::check(&method_attr, &model, Place::Toolset, &mut errors);
        let name = tool_name(&method_attr, &item);
        let name_span = method_attr
            .name
            .as_ref()
            .map_or(item.sig.ident.span(), |lit| lit.span());
        if names.iter().any(|(n, _)| *n == name) {
            errors.push(syn::Error::new(
                name_span,
                format!(
                    "two #[tool] methods of this block are named `{name}`: a toolkit can hold \
                     only one; rename one with `#[tool(name = \"…\")]`"
                ),
            ));
        }
        names.push((name, name_span));
        if errors.len() == before {
            tools.push(method_tool(&method_attr, &model));
        }
        // The method stays as written, minus the parameter attributes the macro consumed.
        let cleaned = expand::original(&item);
        if let Ok(cleaned) = syn::parse2::<ItemFn>(cleaned) {
            method.sig = cleaned.sig;
        }
    }

    let krate = expand::krate(&attr);
    let self_ty = &block.self_ty;
    let (impl_generics, _, where_clause) = block.generics.split_for_impl();
    let mut predicates: Vec<TokenStream> = where_clause
        .map(|w| w.predicates.iter().map(ToTokens::to_token_stream).collect())
        .unwrap_or_default();
    predicates.push(quote!(Self: ::core::marker::Send + ::core::marker::Sync + 'static));
    let this = Ident::new("__toolnexus_this", Span::mixed_site());
    let body = match errors.into_iter().reduce(|mut all, e| {
        all.combine(e);
        all
    }) {
        None => quote!(::std::vec![#(#tools),*]),
        Some(all) => {
            let errors = all.to_compile_error();
            quote!({ #errors ::core::unreachable!() })
        }
    };
    let uses = used_attrs.iter().map(|path| {
        quote! { const _: () = { #[allow(unused_imports)] use #path as _; }; }
    });
    quote! {
        #block
        #(#uses)*

        #[automatically_derived]
        impl #impl_generics #krate::Toolset for #self_ty where #(#predicates),* {
            fn tools(#this: #krate::__private::Arc<Self>) -> ::std::vec::Vec<#krate::Tool> {
                let _ = &#this;
                #body
            }
        }
    }
}

/// One `{ … }` expression building the tool of one method, bound to `__toolnexus_this`.
fn method_tool(attr: &ToolAttr, tool: &ToolFn<'_>) -> TokenStream {
    let krate = expand::krate(attr);
    let item = tool.item;
    let fn_ident = &item.sig.ident;
    let name = tool_name(attr, item);
    let description = match &attr.description {
        Some(lit) => lit.value(),
        None => tool.doc_text(),
    };
    let args_ty = Ident::new("__ToolnexusArgs", Span::mixed_site());
    let fields = expand::fields(tool);
    let tuple = expand::tuple_mode(&fields);
    let names = Names {
        tuple,
        ..Names::new()
    };
    let args_def = expand::args_def(&krate, &fields, &args_ty, tuple);

    let generics: Vec<&Ident> = fields.iter().filter_map(|f| f.generic.as_ref()).collect();
    let bounds = fields.iter().filter_map(|f: &Field<'_, '_>| {
        let (generic, ty) = (f.generic.as_ref()?, f.param.ty?);
        Some(quote_spanned! {ty.span()=> #generic: #krate::__private::ToolParam })
    });
    let types = fields
        .iter()
        .filter(|f| f.generic.is_some())
        .filter_map(|f| f.param.ty);
    let generic_args = (!generics.is_empty()).then(|| quote!(<#(#generics),*>));
    let concrete_checks = fields
        .iter()
        .filter(|f| f.generic.is_none())
        .filter_map(|f| f.param.ty)
        .map(|ty| quote_spanned! {ty.span()=> #krate::__private::assert_param::<#ty>(); });

    let dispatch = call::body(&krate, &name, tool, quote!(Self::#fn_ident), &names);
    let Names {
        parsed, ctx, this, ..
    } = &names;
    let (parsed_ty, builder) = if tuple {
        let keys = expand::keys(&fields);
        (
            quote!((#(#generics,)*)),
            quote!(#krate::__private::method_params_tool::<#args_ty #generic_args, _, _>(#name, #description, &[#(#keys),*], this, call)),
        )
    } else {
        (
            quote!(#args_ty #generic_args),
            quote!(#krate::__private::method_tool(#name, #description, this, call)),
        )
    };
    let ctx_param = if call::uses_ctx(tool) {
        quote!(#ctx)
    } else {
        quote!(_)
    };
    let this_param = if item.sig.receiver().is_some() {
        quote!(#this)
    } else {
        quote!(_)
    };
    let state_types = call::state_types(&krate, tool);
    let with_output = call::with_output(&krate, tool, quote!(tool));
    let approved = call::with_approval(
        &krate,
        attr,
        quote!(#krate::__private::require_states(#with_output, #state_types)),
    );
    let shared = Ident::new("__toolnexus_this", Span::mixed_site());
    quote! {{
        #args_def

        fn build_tool<__S: ?::core::marker::Sized + ::core::marker::Send + ::core::marker::Sync + 'static, #(#bounds),*>(
            this: #krate::__private::Arc<__S>,
            call: fn(&#krate::__private::Arc<__S>, #parsed_ty, #krate::Context) -> #krate::dispatch::Dispatch,
        ) -> #krate::Tool {
            #builder
        }

        let tool = build_tool::<Self, #(#types),*>(
            #krate::__private::Arc::clone(&#shared),
            |#this_param, #parsed, #ctx_param| {
                #(#concrete_checks)*
                #dispatch
            },
        );
        #approved
    }}
}

fn tool_name(attr: &ToolAttr, item: &ItemFn) -> String {
    match &attr.name {
        Some(lit) => lit.value(),
        None => item
            .sig
            .ident
            .to_string()
            .trim_start_matches("r#")
            .to_owned(),
    }
}

/// `#[tool]`, `#[tool(…)]`, `#[toolnexus::tool]`.
fn is_tool_attr(attr: &Attribute) -> bool {
    attr.path()
        .segments
        .last()
        .is_some_and(|s| s.ident == symbol::TOOL)
}

/// The method as a free function, for the shared pipeline.
fn as_item_fn(method: &ImplItemFn) -> ItemFn {
    ItemFn {
        attrs: method.attrs.clone(),
        vis: method.vis.clone(),
        sig: method.sig.clone(),
        block: Box::new(method.block.clone()),
    }
}

fn with_error(item: TokenStream, error: syn::Error) -> TokenStream {
    let mut out = item;
    out.extend(error.to_compile_error());
    out
}

fn not_an_impl(item: &Item) -> syn::Error {
    let what = match item {
        Item::Fn(f) => {
            return syn::Error::new_spanned(
                &f.sig.ident,
                "#[toolset] goes on an impl block; for a function, write #[tool]",
            );
        }
        Item::Struct(s) => s.ident.to_token_stream(),
        Item::Enum(e) => e.ident.to_token_stream(),
        other => other.to_token_stream(),
    };
    syn::Error::new_spanned(
        what,
        "#[toolset] goes on an impl block (`#[toolset] impl MyType { … }`), whose #[tool] \
         methods become tools",
    )
}
