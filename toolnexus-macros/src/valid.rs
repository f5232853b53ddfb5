//! The rules a `#[tool]` function must follow, checked across the attribute and the
//! function together. Every broken rule becomes an error on the narrowest user token;
//! all of them are reported at once.

use quote::{ToTokens, quote};
use syn::{FnArg, ReturnType, Type};

use crate::ast::{Role, ToolFn};
use crate::attr::ToolAttr;

/// Checks `tool` against every rule, pushing one error per problem.
pub(crate) fn check(attr: &ToolAttr, tool: &ToolFn<'_>, errors: &mut Vec<syn::Error>) {
    let sig = &tool.item.sig;
    let mut fail = |tokens: &dyn ToTokens, message: &str| {
        errors.push(syn::Error::new_spanned(tokens, message));
    };

    if let Some(name) = &attr.name
        && let Err(why) = check_name(&name.value())
    {
        fail(name, &why);
    }
    if !sig.generics.params.is_empty() {
        fail(
            &sig.generics,
            "a #[tool] function cannot be generic: its argument schema is generated once, for \
             concrete types; write a non-generic #[tool] function that calls this one",
        );
    } else if let Some(where_clause) = &sig.generics.where_clause {
        fail(
            where_clause,
            "a #[tool] function cannot have a `where` clause",
        );
    }
    if let Some(variadic) = &sig.variadic {
        fail(variadic, "a #[tool] function cannot be variadic");
    }
    if let ReturnType::Default = sig.output {
        // No `-> …` means `()`, which tells the model nothing. (A written-out return type
        // is left to the `IntoToolResult` trait: the macro never judges a type by name.)
        // The span runs from `fn` to the closing parenthesis, where `-> …` belongs.
        let fn_token = sig.fn_token;
        let close = proc_macro2::Ident::new("end", sig.paren_token.span.close());
        fail(
            &quote!(#fn_token #close),
            "a #[tool] function must return its result to the model: add a return type such as \
             `-> Result<String, String>` (the accepted forms are listed on \
             `toolnexus::IntoToolResult`)",
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
                param.arg,
                "a #[tool] function cannot take `self`: a tool is a free function; write one \
                 outside the `impl` block that reaches the state it needs (e.g. through a \
                 `static`)",
            ),
            Role::Context { .. } => {
                contexts += 1;
                if contexts == 2 {
                    fail(
                        param.arg,
                        "a #[tool] function takes at most one `Context` parameter; remove this one",
                    );
                }
            }
            Role::WholeArgs if whole_args > 1 || schema_params > 0 => fail(
                &param.marker,
                "`#[args]` marks the one parameter that stands for the whole argument object; \
                 it cannot sit beside other argument parameters (only a `Context` may): move \
                 them into its type as fields, or drop `#[args]`",
            ),
            Role::Schema | Role::WholeArgs => {}
        }
        let FnArg::Typed(typed) = param.arg else {
            continue;
        };
        if param.ident.is_none() {
            fail(
                &typed.pat,
                "a #[tool] parameter must be a plain name (`name: Type`): its name becomes the \
                 property name in the schema; destructure inside the function instead",
            );
        }
        if let Role::Schema | Role::WholeArgs = param.role {
            check_param_type(&typed.ty, &mut fail);
        }
    }
}

fn check_param_type(ty: &Type, fail: &mut impl FnMut(&dyn ToTokens, &str)) {
    match ty {
        Type::ImplTrait(_) => fail(
            ty,
            "a #[tool] parameter cannot be `impl Trait`: the schema needs a concrete type; name \
             one that implements `Deserialize` and `JsonSchema`",
        ),
        Type::Reference(r) if r.mutability.is_some() && is_context(&r.elem) => fail(
            ty,
            "the context is injected as `&Context` or `Context`, not `&mut Context`",
        ),
        Type::Reference(_) => fail(
            ty,
            "a #[tool] parameter cannot be a reference: arguments are deserialized into owned \
             values; take the owned type (`String` for `&str`, `Vec<T>` for `&[T]`)",
        ),
        Type::Infer(_) => fail(ty, "a #[tool] parameter needs a concrete type"),
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
