//! The function under `#[tool]`, read into a model that borrows from syn: its
//! parameters (and what each one is for), its docs and its return type.

use syn::{Attribute, FnArg, Ident, ItemFn, Pat, Type};

use crate::symbol;

/// The function, as the rest of the macro sees it.
pub(crate) struct ToolFn<'a> {
    pub(crate) item: &'a ItemFn,
    pub(crate) params: Vec<Param<'a>>,
    /// The doc comment, one entry per line, the leading space stripped.
    pub(crate) docs: Vec<String>,
}

/// One parameter of the function.
pub(crate) struct Param<'a> {
    pub(crate) arg: &'a FnArg,
    pub(crate) role: Role,
    /// `Some` for a plain `name: Type` parameter (with any `mut` dropped).
    pub(crate) ident: Option<&'a Ident>,
    /// `None` for a `self` receiver.
    pub(crate) ty: Option<&'a Type>,
    /// `#[doc]`, `#[serde]` and `#[schemars]` attributes, passed on to the field.
    pub(crate) forwarded: Vec<&'a Attribute>,
    /// The `#[args]` / `#[context]` marker, if any, for spans.
    pub(crate) marker: Option<&'a Attribute>,
    /// For a `State<T>` parameter, the `T`.
    pub(crate) state: Option<&'a Type>,
}

/// What a parameter is for.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// A property of the argument object.
    Schema,
    /// The whole argument object (`#[args]`).
    WholeArgs,
    /// The injected context, by reference (`&Context`) or by value (`Context`).
    Context { by_ref: bool },
    /// A shared state, `State<T>`, injected from the toolkit.
    State,
    /// `self`: `&self` in a `#[toolset]` block; nothing else is accepted.
    Receiver,
}

impl<'a> ToolFn<'a> {
    pub(crate) fn from_syn(item: &'a ItemFn) -> ToolFn<'a> {
        ToolFn {
            item,
            params: item.sig.inputs.iter().map(Param::from_syn).collect(),
            docs: doc_lines(&item.attrs),
        }
    }

    /// The doc comment as one description: lines joined, paragraphs and markdown kept,
    /// surrounding blank lines trimmed.
    pub(crate) fn doc_text(&self) -> String {
        join_docs(&self.docs)
    }
}

impl<'a> Param<'a> {
    fn from_syn(arg: &'a FnArg) -> Param<'a> {
        let typed = match arg {
            FnArg::Receiver(_) => {
                return Param {
                    arg,
                    role: Role::Receiver,
                    ident: None,
                    ty: None,
                    forwarded: Vec::new(),
                    marker: None,
                    state: None,
                };
            }
            FnArg::Typed(typed) => typed,
        };
        let marker = typed
            .attrs
            .iter()
            .find(|a| a.path().is_ident(symbol::ARGS) || a.path().is_ident(symbol::CONTEXT));
        let forwarded = typed
            .attrs
            .iter()
            .filter(|a| symbol::FORWARDED.iter().any(|name| a.path().is_ident(name)))
            .collect();
        let ident = match &*typed.pat {
            Pat::Ident(pat) if pat.subpat.is_none() && pat.by_ref.is_none() => Some(&pat.ident),
            _ => None,
        };
        let state = state_inner(&typed.ty);
        let role = match marker {
            Some(attr) if attr.path().is_ident(symbol::ARGS) => Role::WholeArgs,
            Some(_) => Role::Context {
                by_ref: matches!(&*typed.ty, Type::Reference(_)),
            },
            None if state.is_some() => Role::State,
            None => context_role(&typed.ty).unwrap_or(Role::Schema),
        };
        Param {
            arg,
            role,
            ident,
            ty: Some(&typed.ty),
            forwarded,
            marker,
            state,
        }
    }

    /// The doc comment on the parameter, joined like the function's.
    pub(crate) fn doc_text(&self) -> String {
        join_docs(&doc_lines(self.forwarded.iter().copied()))
    }
}

/// `Context`, `&Context` or a path ending in `Context` (`toolnexus::Context`) is the
/// injected context; anything else needs `#[context]` to be one.
fn context_role(ty: &Type) -> Option<Role> {
    let (inner, by_ref) = match ty {
        Type::Reference(r) if r.mutability.is_none() => (&*r.elem, true),
        other => (other, false),
    };
    match inner {
        Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?;
            (last.ident == symbol::CONTEXT_TYPE && last.arguments.is_empty())
                .then_some(Role::Context { by_ref })
        }
        _ => None,
    }
}

/// `State<T>` (or a path ending in it, `toolnexus::State<T>`): the `T`.
fn state_inner(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else { return None };
    if p.qself.is_some() {
        return None;
    }
    let last = p.path.segments.last()?;
    if last.ident != symbol::STATE_TYPE {
        return None;
    }
    match &last.arguments {
        syn::PathArguments::AngleBracketed(args) if args.args.len() == 1 => match &args.args[0] {
            syn::GenericArgument::Type(inner) => Some(inner),
            _ => None,
        },
        _ => None,
    }
}

/// The text of each `#[doc = "…"]` line, with the one leading space a `///` adds removed.
fn doc_lines<'a>(attrs: impl IntoIterator<Item = &'a Attribute>) -> Vec<String> {
    attrs
        .into_iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .flat_map(|text| {
            // A `/** … */` block arrives as one attribute with embedded newlines; an empty
            // `///` line is an empty attribute, which `lines()` would drop.
            if text.is_empty() {
                vec![String::new()]
            } else {
                text.lines().map(str::to_owned).collect::<Vec<_>>()
            }
        })
        .map(|line| line.strip_prefix(' ').map(str::to_owned).unwrap_or(line))
        .collect()
}

fn join_docs(lines: &[String]) -> String {
    let text = lines
        .iter()
        .map(|l| l.trim_end())
        .collect::<Vec<_>>()
        .join("\n");
    text.trim().to_owned()
}
