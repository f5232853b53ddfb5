//! The body of a tool's handler, shared by `#[tool]` functions and `#[toolset]` methods:
//! fetch the `State<T>` parameters, call the function with the parsed arguments and the
//! context, and convert what it returns.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, ReturnType};

use crate::ast::{Role, ToolFn};
use crate::attr::{Approval, ToolAttr};
use crate::symbol::Kind;

/// The names the handler's closure binds, hygienic so no user name can clash.
pub(crate) struct Names {
    pub(crate) parsed: Ident,
    pub(crate) ctx: Ident,
    /// The shared value a method is bound to (a `&Arc<Self>`).
    pub(crate) this: Ident,
    /// Whether the parsed arguments are a tuple (`.0`, `.1`, …) rather than a struct.
    pub(crate) tuple: bool,
    /// What the function becomes: what its value converts into, and how.
    pub(crate) kind: Kind,
}

impl Names {
    pub(crate) fn new() -> Names {
        Names {
            parsed: Ident::new("__parsed", Span::mixed_site()),
            ctx: Ident::new("__ctx", Span::mixed_site()),
            this: Ident::new("__this", Span::mixed_site()),
            tuple: false,
            kind: Kind::Tool,
        }
    }
}

/// Whether the handler needs the context: for a `Context` parameter, or to fetch states.
pub(crate) fn uses_ctx(tool: &ToolFn<'_>) -> bool {
    tool.params
        .iter()
        .any(|p| matches!(p.role, Role::Context { .. } | Role::State))
}

/// `&[StateType::of::<T>(), …]`: the states the tool reads, each `T` checked on the
/// user's type.
pub(crate) fn state_types(krate: &syn::Path, tool: &ToolFn<'_>) -> TokenStream {
    let types = tool.params.iter().filter_map(|p| p.state).map(|ty| {
        quote_spanned! {ty.span()=> #krate::__private::assert_state::<#ty>() }
    });
    quote!(&[#(#types),*])
}

/// The handler's body: `callee` is the path of the function (`add`, `Self::open_issue`).
/// A method is called on `names.this`; the body evaluates to a `Dispatch`.
pub(crate) fn body(
    krate: &syn::Path,
    name: &str,
    tool: &ToolFn<'_>,
    callee: TokenStream,
    names: &Names,
) -> TokenStream {
    let Names {
        parsed,
        ctx,
        this,
        tuple,
        kind,
    } = names;
    let (ready, boxed, missing) = match kind {
        Kind::Tool => (quote!(ready), quote!(boxed), quote!(missing)),
        Kind::Resource => (
            quote!(resource_ready),
            quote!(resource_boxed),
            quote!(resource_missing),
        ),
        Kind::Prompt => (
            quote!(prompt_ready),
            quote!(prompt_boxed),
            quote!(prompt_missing),
        ),
    };
    let mut position = 0usize..;
    let state_var = |i: usize| Ident::new(&format!("__state{i}"), Span::mixed_site());
    let states = tool
        .params
        .iter()
        .enumerate()
        .filter_map(|(i, p)| Some((state_var(i), p.state?)))
        .map(|(var, ty)| {
            quote_spanned! {ty.span()=>
                let #var = match #krate::__private::state::<#ty>(&#ctx, #name) {
                    ::core::result::Result::Ok(state) => state,
                    ::core::result::Result::Err(missing) => {
                        return #krate::__private::#missing(missing);
                    }
                };
            }
        });
    let states = quote!(#(#states)*);
    let method = tool.params.iter().any(|p| p.role == Role::Receiver);
    let args = tool.params.iter().enumerate().map(|(i, p)| match p.role {
        Role::Context { by_ref: true } => quote!(&#ctx),
        Role::Context { by_ref: false } => quote!(#ctx),
        Role::WholeArgs => quote!(#parsed),
        Role::State => {
            let var = state_var(i);
            quote!(#var)
        }
        Role::Receiver => quote!(&**#this),
        Role::Schema if *tuple => {
            let at = syn::Index::from(position.next().unwrap_or_default());
            quote!(#parsed.#at)
        }
        Role::Schema => {
            let ident = p.ident;
            quote!(#parsed.#ident)
        }
    });
    let args: Vec<TokenStream> = args.collect();
    let item = tool.item;
    let (returns, ret_span) = returns(krate, tool, *kind);
    let result_var = Ident::new("__result", Span::mixed_site().located_at(ret_span));
    let convert = quote_spanned! {ret_span=> #returns.convert(#result_var) };
    if let Some(asyncness) = &item.sig.asyncness {
        // A future that is not `Send` is reported on the user's `async` keyword: the whole
        // call is located there.
        let krate = respan(quote!(#krate), asyncness.span);
        let boxed = respan(boxed, asyncness.span);
        // The future owns its own handle on the shared value.
        let hold = method.then(|| {
            let owned = Ident::new("__owned", Span::mixed_site());
            (
                quote!(let #owned = #krate::__private::Arc::clone(#this);),
                quote!(let #this = &#owned;),
            )
        });
        let (outside, inside) = hold.unzip();
        quote_spanned! {asyncness.span=>
            #states
            #outside
            #krate::__private::#boxed(async move {
                #inside
                let #result_var = #callee(#(#args),*).await;
                #convert
            })
        }
    } else {
        quote! {
            #states
            let #result_var = #callee(#(#args),*);
            #krate::__private::#ready(#convert)
        }
    }
}

/// `returns::<R, _>()`, at the span of the return type `R` the user wrote, and that span.
///
/// Trait errors on the returned value point at the return type: it is named as the type
/// argument (an `impl Trait` cannot be, and is inferred from the value instead). The
/// conversion and the output schema both come from this call, written alike at the same
/// span, so rustc reports an unsupported return type once.
fn returns(krate: &syn::Path, tool: &ToolFn<'_>, kind: Kind) -> (TokenStream, Span) {
    let item = tool.item;
    // A tool's conversion has a second, inferred parameter (the form of the return type).
    let rest = (kind == Kind::Tool).then(|| quote!(, _));
    let (ret_span, ret_ty) = match &item.sig.output {
        ReturnType::Type(_, ty) if !matches!(**ty, syn::Type::ImplTrait(_)) => {
            (ty.span(), quote!(::<#ty #rest>))
        }
        ReturnType::Type(_, ty) => (ty.span(), quote!()),
        ReturnType::Default => (item.sig.ident.span(), quote!(::<() #rest>)),
    };
    let function = match kind {
        Kind::Tool => quote!(returns),
        Kind::Resource => quote!(resource_returns),
        Kind::Prompt => quote!(prompt_returns),
    };
    (
        quote_spanned! {ret_span=> #krate::__private::#function #ret_ty () },
        ret_span,
    )
}

/// `tool` (an expression) with the output schema of the function's return type, when the
/// type can be named (not an `impl Trait`).
pub(crate) fn with_output(krate: &syn::Path, tool: &ToolFn<'_>, built: TokenStream) -> TokenStream {
    if matches!(&tool.item.sig.output, ReturnType::Type(_, ty) if matches!(**ty, syn::Type::ImplTrait(_)))
    {
        return built;
    }
    let (returns, _) = returns(krate, tool, Kind::Tool);
    quote!(#returns.with_output(#built))
}

/// `built` (a `Tool` expression) behind the approval gate `#[tool(approval)]` asks for,
/// and marked long-running when `#[tool(task)]` says so.
pub(crate) fn with_approval(krate: &syn::Path, attr: &ToolAttr, built: TokenStream) -> TokenStream {
    let built = match &attr.task {
        None => built,
        Some(path) => quote_spanned! {path.span()=> #krate::Tool::with_task(#built) },
    };
    let built = match &attr.ui {
        None => built,
        Some(uri) => quote_spanned! {uri.span()=> #krate::Tool::with_ui(#built, #uri) },
    };
    let built = match &attr.ui_visibility {
        None => built,
        Some(lit) => {
            let list = crate::valid::visibility_list(&lit.value()).unwrap_or_default();
            quote_spanned! {lit.span()=> #krate::Tool::with_ui_visibility(#built, [#(#list),*]) }
        }
    };
    match &attr.approval {
        None => built,
        Some(Approval::Default(path)) => {
            quote_spanned! {path.span()=> #krate::Tool::with_approval(#built) }
        }
        Some(Approval::Prompt(prompt)) => {
            quote_spanned! {prompt.span()=> #krate::Tool::with_approval_prompt(#built, #prompt) }
        }
    }
}

/// The same tokens, every one of them (and every group) located at `span`.
pub(crate) fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut token| {
            if let proc_macro2::TokenTree::Group(group) = &token {
                let mut inner =
                    proc_macro2::Group::new(group.delimiter(), respan(group.stream(), span));
                inner.set_span(span);
                token = inner.into();
            }
            token.set_span(span);
            token
        })
        .collect()
}
