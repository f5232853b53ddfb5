//! `#[tool(…)]`: the attribute's keys, parsed with their original tokens for spans.

use proc_macro2::TokenStream;
use syn::meta::ParseNestedMeta;
use syn::{LitStr, Path};

use crate::symbol;

/// What `#[tool(…)]` said. Each value keeps its literal for error spans.
#[derive(Default)]
pub(crate) struct ToolAttr {
    pub(crate) name: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) krate: Option<Path>,
}

impl ToolAttr {
    /// Parses the attribute's arguments, collecting every problem into `errors`.
    pub(crate) fn parse(args: TokenStream, errors: &mut Vec<syn::Error>) -> ToolAttr {
        let mut attr = ToolAttr::default();
        let parser = syn::meta::parser(|meta| {
            if let Err(e) = attr.key(&meta) {
                errors.push(e);
            }
            Ok(())
        });
        if let Err(e) = syn::parse::Parser::parse2(parser, args) {
            errors.push(e);
        }
        attr
    }

    fn key(&mut self, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
        let key = meta
            .path
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        match key.as_str() {
            symbol::NAME => set(&mut self.name, meta, meta.value()?.parse()?),
            symbol::DESCRIPTION => set(&mut self.description, meta, meta.value()?.parse()?),
            symbol::CRATE => {
                let lit: LitStr = meta.value()?.parse()?;
                let path = lit.parse::<Path>().map_err(|_| {
                    syn::Error::new(
                        lit.span(),
                        "`crate` must be a path, e.g. `crate = \"my::toolnexus\"`",
                    )
                })?;
                set(&mut self.krate, meta, path)
            }
            _ => {
                // Skip a value if one follows, so the next key still parses.
                if meta.input.peek(syn::Token![=]) {
                    let _: syn::Expr = meta.value()?.parse()?;
                }
                Err(meta.error(unknown_key(&key)))
            }
        }
    }
}

fn set<T>(slot: &mut Option<T>, meta: &ParseNestedMeta<'_>, value: T) -> syn::Result<()> {
    if slot.is_some() {
        let key = meta
            .path
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        return Err(meta.error(format!("duplicate `{key}` in #[tool(…)]")));
    }
    *slot = Some(value);
    Ok(())
}

fn unknown_key(key: &str) -> String {
    let accepted = symbol::TOOL_KEYS
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let mut message = format!("unknown key `{key}` in #[tool(…)]");
    if let Some(close) = closest(key, symbol::TOOL_KEYS) {
        message.push_str(&format!("; did you mean `{close}`?"));
    }
    message.push_str(&format!(" (accepted keys: {accepted})"));
    message
}

/// The accepted key nearest to `key`, if it is a plausible typo of it.
fn closest<'a>(key: &str, candidates: &[&'a str]) -> Option<&'a str> {
    candidates
        .iter()
        .map(|c| (edit_distance(key, c), *c))
        .filter(|(d, c)| *d <= (c.len() / 3).max(1))
        .min()
        .map(|(_, c)| c)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (row[j + 1] + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}
