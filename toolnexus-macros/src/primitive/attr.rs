//! `#[resource(…)]` and `#[prompt(…)]`: their keys, parsed with their original tokens
//! for spans, and the `#[complete(…)]` attribute of their parameters.

use proc_macro2::TokenStream;
use syn::meta::ParseNestedMeta;
use syn::{Attribute, LitStr, Path};

use crate::attr::{crate_path, parse_keys, set_in, string, unknown_key_in};
use crate::symbol::{self, Kind};

/// What `#[resource(…)]` or `#[prompt(…)]` said.
#[derive(Default)]
pub(crate) struct ItemAttr {
    pub(crate) uri: Option<LitStr>,
    pub(crate) name: Option<LitStr>,
    pub(crate) title: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) mime_type: Option<LitStr>,
    pub(crate) krate: Option<Path>,
}

impl ItemAttr {
    /// Parses the attribute's arguments, collecting every problem into `errors`.
    pub(crate) fn parse(kind: Kind, args: TokenStream, errors: &mut Vec<syn::Error>) -> ItemAttr {
        let mut attr = ItemAttr::default();
        parse_keys(args, errors, |meta| attr.key(kind, meta));
        attr
    }

    fn key(&mut self, kind: Kind, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
        let (attr, keys) = match kind {
            Kind::Resource => ("resource", symbol::RESOURCE_KEYS),
            _ => ("prompt", symbol::PROMPT_KEYS),
        };
        let key = meta
            .path
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        if !keys.contains(&key.as_str()) {
            return Err(syn::Error::new_spanned(
                &meta.path,
                unknown_key_in(attr, keys, &meta.path),
            ));
        }
        match key.as_str() {
            symbol::URI => set_in(
                attr,
                &mut self.uri,
                meta,
                string(meta, "users://{id}/profile")?,
            ),
            symbol::NAME => set_in(attr, &mut self.name, meta, string(meta, "code_review")?),
            symbol::TITLE => set_in(attr, &mut self.title, meta, string(meta, "Code review")?),
            symbol::DESCRIPTION => set_in(
                attr,
                &mut self.description,
                meta,
                string(meta, "Review a piece of code.")?,
            ),
            symbol::MIME_TYPE => set_in(
                attr,
                &mut self.mime_type,
                meta,
                string(meta, "text/markdown")?,
            ),
            _ => set_in(attr, &mut self.krate, meta, crate_path(meta)?),
        }
    }
}

/// `#[complete(…)]` on one parameter.
pub(crate) enum Complete {
    /// `values = ["…", …]`.
    Values(Vec<LitStr>),
    /// `with = path`.
    With(Path),
}

/// The `#[complete(…)]` of a parameter, if it has one; problems go to `errors`.
pub(crate) fn complete(attrs: &[Attribute], errors: &mut Vec<syn::Error>) -> Option<Complete> {
    let mut found: Option<Complete> = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident(symbol::COMPLETE)) {
        let list = match &attr.meta {
            syn::Meta::List(list) => list,
            other => {
                errors.push(syn::Error::new_spanned(
                    other,
                    "write `#[complete(values = [\"…\", …])]` or `#[complete(with = function)]`",
                ));
                continue;
            }
        };
        let mut given: Option<Complete> = None;
        let parser = syn::meta::parser(|meta| {
            let key = meta
                .path
                .get_ident()
                .map(ToString::to_string)
                .unwrap_or_default();
            let parsed = match key.as_str() {
                symbol::VALUES => values(&meta).map(Complete::Values),
                symbol::WITH => with(&meta).map(Complete::With),
                _ => Err(syn::Error::new_spanned(
                    &meta.path,
                    unknown_key_in("complete", symbol::COMPLETE_KEYS, &meta.path),
                )),
            };
            match parsed {
                Ok(complete) if given.is_some() || found.is_some() => {
                    let _ = complete;
                    errors.push(syn::Error::new_spanned(
                        &meta.path,
                        "a parameter is completed one way: keep one `values` or one `with`",
                    ));
                }
                Ok(complete) => given = Some(complete),
                Err(e) => {
                    errors.push(e);
                    while !meta.input.is_empty() && !meta.input.peek(syn::Token![,]) {
                        meta.input.parse::<proc_macro2::TokenTree>()?;
                    }
                }
            }
            Ok(())
        });
        if let Err(e) = syn::parse::Parser::parse2(parser, list.tokens.clone()) {
            errors.push(e);
        }
        if given.is_none() && list.tokens.is_empty() {
            errors.push(syn::Error::new_spanned(
                attr,
                "`#[complete]` needs `values = [\"…\", …]` or `with = function`",
            ));
        }
        found = found.or(given);
    }
    found
}

fn values(meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<LitStr>> {
    let expected = "`values` takes a list of strings: `values = [\"rust\", \"python\"]`";
    if !meta.input.peek(syn::Token![=]) {
        return Err(syn::Error::new_spanned(&meta.path, expected));
    }
    let value: syn::Expr = meta.value()?.parse()?;
    let syn::Expr::Array(array) = &value else {
        return Err(syn::Error::new_spanned(value, expected));
    };
    array
        .elems
        .iter()
        .map(|elem| match elem {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(lit),
                ..
            }) => Ok(lit.clone()),
            other => Err(syn::Error::new_spanned(other, expected)),
        })
        .collect()
}

fn with(meta: &ParseNestedMeta<'_>) -> syn::Result<Path> {
    let expected = "`with` takes the path of a function: `with = complete_language`, where \
                    `fn complete_language(request: &CompletionRequest) -> Vec<String>`";
    if !meta.input.peek(syn::Token![=]) {
        return Err(syn::Error::new_spanned(&meta.path, expected));
    }
    let value: syn::Expr = meta.value()?.parse()?;
    match value {
        syn::Expr::Path(path) if path.qself.is_none() => Ok(path.path),
        other => Err(syn::Error::new_spanned(other, expected)),
    }
}
