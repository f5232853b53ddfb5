//! The rules a `#[tool]` function must follow, checked across the attribute and the
//! function together. Every broken rule becomes an error on the narrowest user token;
//! all of them are reported at once.

use syn::spanned::Spanned;
use syn::{FnArg, Type};

use crate::ast::{Role, ToolFn};
use crate::attr::ToolAttr;

/// Checks `tool` against every rule, pushing one error per problem.
pub(crate) fn check(attr: &ToolAttr, tool: &ToolFn<'_>, errors: &mut Vec<syn::Error>) {
    let sig = &tool.item.sig;
    let mut fail =
        |span: proc_macro2::Span, message: String| errors.push(syn::Error::new(span, message));

    if let Some(name) = &attr.name {
        if let Err(why) = check_name(&name.value()) {
            fail(name.span(), why);
        }
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        fail(
            sig.generics.span(),
            "a #[tool] function cannot be generic: the argument schema is generated once, for \
             concrete types; write a non-generic wrapper that calls the generic function"
                .into(),
        );
    }
    if let Some(variadic) = &sig.variadic {
        fail(
            variadic.span(),
            "a #[tool] function cannot be variadic".into(),
        );
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
            Role::Receiver => fail(
                param.arg.span(),
                "a #[tool] function cannot take `self`: tools are free functions; write a free \
                 function (or an associated function without a receiver) that reaches the state \
                 it needs"
                    .into(),
            ),
            Role::Context { .. } => {
                contexts += 1;
                if contexts == 2 {
                    fail(
                        param.arg.span(),
                        "a #[tool] function takes at most one `Context` parameter; remove this one"
                            .into(),
                    );
                }
            }
            Role::WholeArgs if whole_args > 1 || schema_params > 0 => fail(
                param.marker.map_or(param.arg.span(), |m| m.span()),
                "`#[args]` marks the one parameter that stands for the whole argument object; \
                 it cannot be combined with other argument parameters (only a `Context` may sit \
                 beside it)"
                    .into(),
            ),
            Role::Schema | Role::WholeArgs => {}
        }
        if param.role == Role::Receiver {
            continue;
        }
        if param.ident.is_none() {
            if let FnArg::Typed(typed) = param.arg {
                fail(
                    typed.pat.span(),
                    "a #[tool] parameter must be a plain name (`name: Type`): its name becomes the \
                     property name in the schema; destructure inside the function instead"
                        .into(),
                );
            }
        }
        if let (Some(ty), Role::Schema | Role::WholeArgs) = (param.ty, param.role) {
            check_param_type(ty, &mut fail);
        }
    }
}

fn check_param_type(ty: &Type, fail: &mut impl FnMut(proc_macro2::Span, String)) {
    match ty {
        Type::ImplTrait(_) => fail(
            ty.span(),
            "a #[tool] parameter cannot be `impl Trait`: the schema needs a concrete type; name \
             one that implements `Deserialize` and `JsonSchema`"
                .into(),
        ),
        Type::Reference(_) => fail(
            ty.span(),
            "a #[tool] parameter cannot be a reference: arguments are deserialized into owned \
             values; take the owned type (`String` for `&str`, `Vec<T>` for `&[T]`)"
                .into(),
        ),
        Type::Infer(_) => fail(
            ty.span(),
            "a #[tool] parameter needs a concrete type".into(),
        ),
        _ => {}
    }
}

/// The name rule every provider accepts: `^[a-zA-Z0-9_-]{1,64}$`.
fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("a tool name cannot be empty".into());
    }
    if name.len() > 64 {
        return Err(format!(
            "a tool name is at most 64 characters (providers reject longer ones); this one has {}",
            name.len()
        ));
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
    {
        return Err(format!(
            "invalid tool name `{name}`: {bad:?} is not allowed; providers accept only letters, \
             digits, `_` and `-`"
        ));
    }
    Ok(())
}
