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
    pub(crate) approval: Option<Approval>,
    /// `task`, kept for its span.
    pub(crate) task: Option<Path>,
    /// `ui = "ui://…"`: the URI of the tool's MCP Apps view.
    pub(crate) ui: Option<LitStr>,
    /// `ui_visibility = "app"`: who may call the tool.
    pub(crate) ui_visibility: Option<LitStr>,
}

/// `approval` alone (the default prompt), or `approval = "…"` (this prompt).
pub(crate) enum Approval {
    Default(Path),
    Prompt(LitStr),
}

impl ToolAttr {
    /// Parses the attribute's arguments, collecting every problem into `errors`.
    pub(crate) fn parse(args: TokenStream, errors: &mut Vec<syn::Error>) -> ToolAttr {
        let mut attr = ToolAttr::default();
        parse_keys(args, errors, |meta| attr.key(meta));
        attr
    }

    fn key(&mut self, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
        let key = meta
            .path
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        match key.as_str() {
            symbol::NAME => set(&mut self.name, meta, string(meta, "add_numbers")?),
            symbol::DESCRIPTION => set(
                &mut self.description,
                meta,
                string(meta, "Add two numbers.")?,
            ),
            symbol::APPROVAL => {
                let approval = if meta.input.peek(syn::Token![=]) {
                    Approval::Prompt(string(meta, "Delete the repository?")?)
                } else if meta.input.is_empty() || meta.input.peek(syn::Token![,]) {
                    Approval::Default(meta.path.clone())
                } else {
                    return Err(syn::Error::new_spanned(
                        &meta.path,
                        "write `approval` alone (the prompt names the tool and shows its \
                         arguments) or `approval = \"…\"` with the prompt",
                    ));
                };
                set(&mut self.approval, meta, approval)
            }
            symbol::TASK => {
                if !meta.input.is_empty() && !meta.input.peek(syn::Token![,]) {
                    return Err(syn::Error::new_spanned(
                        &meta.path,
                        "`task` takes no value: write `#[tool(task)]` to mark the tool \
                         long-running, or leave it out",
                    ));
                }
                set(&mut self.task, meta, meta.path.clone())
            }
            symbol::UI => set(
                &mut self.ui,
                meta,
                string(meta, "ui://my-server/view.html")?,
            ),
            symbol::UI_VISIBILITY => set(&mut self.ui_visibility, meta, string(meta, "app")?),
            symbol::CRATE => set(&mut self.krate, meta, crate_path(meta)?),
            _ => Err(syn::Error::new_spanned(&meta.path, unknown_key(&meta.path))),
        }
    }
}

/// Runs `key` on each key of an attribute's arguments `args`, collecting every problem
/// into `errors`. After a bad key, what is left of its value is skipped, so that the next
/// key still parses.
pub(crate) fn parse_keys(
    args: TokenStream,
    errors: &mut Vec<syn::Error>,
    mut key: impl FnMut(&ParseNestedMeta<'_>) -> syn::Result<()>,
) {
    let parser = syn::meta::parser(|meta| {
        if let Err(e) = key(&meta) {
            errors.push(e);
            while !meta.input.is_empty() && !meta.input.peek(syn::Token![,]) {
                meta.input.parse::<proc_macro2::TokenTree>()?;
            }
        }
        Ok(())
    });
    if let Err(e) = syn::parse::Parser::parse2(parser, args) {
        errors.push(e);
    }
}

/// The path after `crate =` (where the expansion finds toolnexus).
pub(crate) fn crate_path(meta: &ParseNestedMeta<'_>) -> syn::Result<Path> {
    let lit = string(meta, "my_crate::toolnexus")?;
    lit.parse::<Path>().map_err(|_| {
        syn::Error::new(
            lit.span(),
            "`crate` must be a path, e.g. `crate = \"my_crate::toolnexus\"`",
        )
    })
}

/// The string literal after `key =`; a missing `=` or another kind of value is an error
/// that shows the expected form.
pub(crate) fn string(meta: &ParseNestedMeta<'_>, example: &str) -> syn::Result<LitStr> {
    let key = meta
        .path
        .get_ident()
        .map(ToString::to_string)
        .unwrap_or_default();
    let expected = format!("`{key}` takes a string: `{key} = \"{example}\"`");
    if !meta.input.peek(syn::Token![=]) {
        return Err(syn::Error::new_spanned(&meta.path, expected));
    }
    let value: syn::Expr = meta.value()?.parse()?;
    match value {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(lit),
            ..
        }) => Ok(lit),
        other => Err(syn::Error::new_spanned(other, expected)),
    }
}

fn set<T>(slot: &mut Option<T>, meta: &ParseNestedMeta<'_>, value: T) -> syn::Result<()> {
    set_in("tool", slot, meta, value)
}

/// Sets `slot` once; a second time is an error on the key, inside `#[attr(…)]`.
pub(crate) fn set_in<T>(
    attr: &str,
    slot: &mut Option<T>,
    meta: &ParseNestedMeta<'_>,
    value: T,
) -> syn::Result<()> {
    if slot.is_some() {
        let key = meta
            .path
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        return Err(syn::Error::new_spanned(
            &meta.path,
            format!("`{key}` is set twice in #[{attr}(…)]; keep one"),
        ));
    }
    *slot = Some(value);
    Ok(())
}

fn unknown_key(path: &Path) -> String {
    unknown_key_in("tool", symbol::TOOL_KEYS, path)
}

/// The error for a key `#[attr(…)]` does not take, with the one it may be a typo of.
pub(crate) fn unknown_key_in(attr: &str, keys: &[&str], path: &Path) -> String {
    let key = quote::quote!(#path).to_string().replace(' ', "");
    let accepted = match keys {
        [init @ .., last] => format!(
            "{} and `{last}`",
            init.iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        [] => String::new(),
    };
    match closest(&key, keys) {
        Some(close) => {
            format!(
                "unknown key `{key}` in #[{attr}(…)]: did you mean `{close}`? (the keys are {accepted})"
            )
        }
        None => format!("unknown key `{key}` in #[{attr}(…)]; the keys are {accepted}"),
    }
}

/// The accepted key nearest to `key`, if it is a plausible typo of it.
fn closest<'a>(key: &str, candidates: &[&'a str]) -> Option<&'a str> {
    candidates
        .iter()
        .map(|c| (edit_distance(&key.to_lowercase(), c), *c))
        .filter(|(d, c)| *d <= (c.len() / 3).max(1))
        .min()
        .map(|(_, c)| c)
}

/// Levenshtein distance where swapping two neighbouring characters (`nmae`) costs one
/// edit, like any other typo (the "optimal string alignment" distance).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // d[i][j]: the distance between the first i characters of a and the first j of b.
    let mut d = vec![vec![0; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::closest;
    use crate::symbol::TOOL_KEYS;

    #[test]
    fn suggests_the_key_a_typo_was_meant_to_be() {
        assert_eq!(closest("nmae", TOOL_KEYS), Some("name"));
        assert_eq!(closest("nam", TOOL_KEYS), Some("name"));
        assert_eq!(closest("Name", TOOL_KEYS), Some("name"));
        assert_eq!(closest("desciption", TOOL_KEYS), Some("description"));
        assert_eq!(closest("descritpion", TOOL_KEYS), Some("description"));
        assert_eq!(closest("krate", TOOL_KEYS), Some("crate"));
        assert_eq!(closest("aproval", TOOL_KEYS), Some("approval"));
        assert_eq!(closest("rename", TOOL_KEYS), None);
        assert_eq!(closest("title", TOOL_KEYS), None);
    }
}
