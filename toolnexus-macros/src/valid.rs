//! The rules a `#[tool]` function must follow, checked across the attribute and the
//! function together. Every broken rule becomes an error on the narrowest user token;
//! all of them are reported at once.

use quote::ToTokens;
use syn::{FnArg, Type};

use crate::ast::{Role, ToolFn};
use crate::attr::{Approval, ToolAttr};
use crate::symbol::Kind;

/// Where the function stands.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// A free function under `#[tool]`.
    Free,
    /// A function of a `#[toolset]` impl block, `&self` method or associated function.
    Toolset,
}

/// Checks `tool` against every rule, pushing one error per problem.
pub(crate) fn check(
    attr: &ToolAttr,
    tool: &ToolFn<'_>,
    place: Place,
    errors: &mut Vec<syn::Error>,
) {
    let mut fail = |tokens: &dyn ToTokens, message: &str| {
        errors.push(syn::Error::new_spanned(tokens, message));
    };

    if let Some(name) = &attr.name
        && let Err(why) = check_name(&name.value())
    {
        fail(name, &why);
    }
    if let Some(Approval::Prompt(prompt)) = &attr.approval
        && prompt.value().trim().is_empty()
    {
        fail(
            prompt,
            "the approval prompt is empty: write the question to ask, or `approval` alone \
             for the default prompt (it names the tool and shows its arguments)",
        );
    }
    if let Some(ui) = &attr.ui
        && let Err(why) = check_ui_uri(&ui.value())
    {
        fail(ui, &why);
    }
    if let Some(visibility) = &attr.ui_visibility
        && visibility_list(&visibility.value()).is_none()
    {
        fail(
            visibility,
            "`ui_visibility` is \"app\" (only the tool's MCP Apps views may call it), \
             \"model\" (only the model may) or \"model, app\" (both, the default)",
        );
    }
    check_signature(Kind::Tool, tool, place, errors);
}

/// A view's URI is a `ui://` URI with something after the scheme.
fn check_ui_uri(uri: &str) -> Result<(), String> {
    match uri.strip_prefix("ui://") {
        Some(rest) if !rest.trim().is_empty() && !rest.contains(char::is_whitespace) => Ok(()),
        Some(_) => Err(format!(
            "`ui = \"{uri}\"` names no view: write the view's resource URI, e.g. \
             `ui = \"ui://my-server/view.html\"`"
        )),
        None => Err(format!(
            "`ui = \"{uri}\"` is not a `ui://` URI: an MCP Apps view is a resource whose URI \
             starts with `ui://`, e.g. `ui = \"ui://my-server/view.html\"`"
        )),
    }
}

/// `"app"`, `"model"` or both, comma-separated, as the list `_meta.ui.visibility` holds.
pub(crate) fn visibility_list(value: &str) -> Option<Vec<String>> {
    let list: Vec<String> = value.split(',').map(|v| v.trim().to_owned()).collect();
    let valid = !list.is_empty()
        && list.iter().all(|v| v == "app" || v == "model")
        && (list.len() == 1 || list[0] != list[1])
        && list.len() <= 2;
    valid.then_some(list)
}

/// The rules of the signature every kind of function shares: not generic, one context at
/// most, plain parameter names of owned, concrete types.
pub(crate) fn check_signature(
    kind: Kind,
    tool: &ToolFn<'_>,
    place: Place,
    errors: &mut Vec<syn::Error>,
) {
    let sig = &tool.item.sig;
    let attr = kind.attr();
    let mut fail = |tokens: &dyn ToTokens, message: &str| {
        errors.push(syn::Error::new_spanned(tokens, message));
    };
    if !sig.generics.params.is_empty() {
        let what = if kind == Kind::Tool {
            "argument schema"
        } else {
            "parameters' schema"
        };
        fail(
            &sig.generics,
            &format!(
                "a {attr} function cannot be generic: its {what} is generated once, for \
                 concrete types; write a non-generic {attr} function that calls this one"
            ),
        );
    } else if let Some(where_clause) = &sig.generics.where_clause {
        fail(
            where_clause,
            &format!("a {attr} function cannot have a `where` clause"),
        );
    }
    if let Some(variadic) = &sig.variadic {
        fail(variadic, &format!("a {attr} function cannot be variadic"));
    }

    let mut contexts = 0;
    let whole_args = tool
        .params
        .iter()
        .filter(|p| p.role == Role::WholeArgs)
        .count();
    let schema_params = tool
        .params
        .iter()
        .filter(|p| p.role == Role::Schema)
        .count();
    for param in &tool.params {
        match param.role {
            Role::Receiver => {
                let problem = match kind {
                    Kind::Tool => receiver_problem(param.arg, place),
                    _ => Some(format!(
                        "{attr} goes on a free function, not on a method: write a function \
                         outside the `impl` block (it can take the value as a `State<T>` \
                         parameter)"
                    )),
                };
                if let Some(why) = problem {
                    fail(param.arg, &why);
                }
            }
            Role::Context { .. } => {
                contexts += 1;
                if contexts == 2 {
                    fail(
                        param.arg,
                        &format!(
                            "a {attr} function takes at most one `Context` parameter; remove this one"
                        ),
                    );
                }
            }
            Role::WholeArgs if whole_args > 1 || schema_params > 0 => fail(
                &param.marker,
                "`#[args]` marks the one parameter that stands for the whole argument object; \
                 it cannot sit beside other argument parameters (only a `Context` may): move \
                 them into its type as fields, or drop `#[args]`",
            ),
            Role::Schema | Role::WholeArgs | Role::State => {}
        }
        let FnArg::Typed(typed) = param.arg else {
            continue;
        };
        if param.ident.is_none() {
            fail(
                &typed.pat,
                &format!(
                    "a {attr} parameter must be a plain name (`name: Type`): {}; destructure \
                     inside the function instead",
                    kind.param_names()
                ),
            );
        }
        if let Role::Schema | Role::WholeArgs = param.role {
            check_param_type(kind, &typed.ty, &mut fail);
        }
    }
}

/// What is wrong with a `self` parameter, if anything: only `&self` in a `#[toolset]`
/// block is a tool's receiver.
fn receiver_problem(arg: &FnArg, place: Place) -> Option<String> {
    let FnArg::Receiver(receiver) = arg else {
        return None;
    };
    if place == Place::Free {
        return Some(
            "#[tool] on a method needs `#[toolset]` on its impl block: write `#[toolset]` above \
             `impl …` (then each `#[tool]` method becomes a tool bound to a value, registered \
             with `Toolkit::with_toolset(value)`)"
                .into(),
        );
    }
    let by_ref = receiver.reference.is_some();
    if by_ref && receiver.mutability.is_some() {
        return Some(
            "a #[tool] method takes `&self`, not `&mut self`: the toolkit shares one value \
             between concurrent calls; keep the changing parts behind interior mutability \
             (`Mutex`, `RwLock`, atomics) and take `&self`"
                .into(),
        );
    }
    if !by_ref && receiver.colon_token.is_none() {
        return Some(
            "a #[tool] method takes `&self`, not `self` by value: the toolkit keeps the value in \
             an `Arc` and calls every tool on it; take `&self` (and clone what the call must \
             own)"
                .into(),
        );
    }
    if receiver.colon_token.is_some() {
        return Some(
            "a #[tool] method takes `&self`: the toolkit already holds the value in an `Arc` \
             (give `Toolkit::with_toolset` an `Arc<T>` to keep a handle on it)"
                .into(),
        );
    }
    None
}

fn check_param_type(kind: Kind, ty: &Type, fail: &mut impl FnMut(&dyn ToTokens, &str)) {
    let attr = kind.attr();
    match ty {
        Type::ImplTrait(_) => fail(
            ty,
            &format!(
                "a {attr} parameter cannot be `impl Trait`: the schema needs a concrete type; \
                 name one that implements `Deserialize` and `JsonSchema`"
            ),
        ),
        Type::Reference(r) if r.mutability.is_some() && is_context(&r.elem) => fail(
            ty,
            "the context is injected as `&Context` or `Context`, not `&mut Context`",
        ),
        Type::Reference(_) => fail(
            ty,
            &format!(
                "a {attr} parameter cannot be a reference: arguments are deserialized into \
                 owned values; take the owned type (`String` for `&str`, `Vec<T>` for `&[T]`)"
            ),
        ),
        Type::Infer(_) => fail(ty, &format!("a {attr} parameter needs a concrete type")),
        _ => {}
    }
}

/// `Context` or a path ending in it, as the injected context is recognised in `ast`.
fn is_context(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none()
        && p.path.segments.last().is_some_and(|s| s.ident == crate::symbol::CONTEXT_TYPE))
}

/// The name rule every provider accepts: `^[a-zA-Z0-9_-]{1,64}$`.
fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err(
            "a tool name cannot be empty; leave `name` out to use the function's name".into(),
        );
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
    {
        let bad = if bad.is_whitespace() {
            "a space".to_owned()
        } else {
            format!("`{bad}`")
        };
        let fixed: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        return Err(format!(
            "invalid tool name `{name}`: {bad} is not allowed; providers accept only ASCII \
             letters, digits, `_` and `-` (e.g. `{fixed}`)"
        ));
    }
    if name.len() > 64 {
        return Err(format!(
            "a tool name is at most 64 characters (providers reject longer ones); this one has {}",
            name.len()
        ));
    }
    Ok(())
}
