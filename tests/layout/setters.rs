//! One setter style (ARCHITECTURE.md, "Setters"): what a user configures before it runs (a
//! client, a server, a provider, their options and limits) takes bare setters, as tokio's
//! `runtime::Builder` and reqwest's `ClientBuilder` do; `with_NAME` only where `NAME` is a
//! getter of the same type (`OpenAi::with_base_url` beside `base_url()`).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;

use super::{code, crate_src, sources};

/// The types configured before they run. `$ty` is the providers' shared builder macros
/// (`http_settings!`, `model_settings!`, `vertex_model!`).
const CONFIGURED: &[&str] = &[
    "$ty",
    "A2aAgentBuilder",
    "A2aServer",
    "Acp",
    "Anthropic",
    "AzureOpenAi",
    "Bedrock",
    "Builtins",
    "Client",
    "Compaction",
    "HttpOptions",
    "HttpTool",
    "McpClientBuilder",
    "McpServer",
    "ModelSettings",
    "OAuth",
    "Retry",
    "RuntimeBuilder",
    "Skills",
    "ToolkitBuilder",
    "UiOptions",
    "UsageLimits",
    "VertexAnthropic",
    "WebGuard",
];

/// The type an `impl` line opens a block for: `impl<T> Trait for Type<T> {` → `Type`.
fn impl_type(line: &str) -> Option<String> {
    let line = line.trim();
    let rest = line.strip_prefix("impl")?;
    if !line.ends_with('{') || !(rest.starts_with(' ') || rest.starts_with('<')) {
        return None;
    }
    let mut head = rest.trim_end_matches('{').trim();
    if head.starts_with('<') {
        // Skip the block's own generics: `<T: Clone>`.
        let mut depth = 0;
        let end = head.char_indices().find_map(|(i, c)| {
            depth += match c {
                '<' => 1,
                '>' => -1,
                _ => 0,
            };
            (depth == 0).then_some(i)
        })?;
        head = head[end + 1..].trim();
    }
    let head = head.rsplit(" for ").next().unwrap_or(head);
    let head = head.split(" where").next().unwrap_or(head);
    let ty = head.split('<').next().unwrap_or(head);
    let ty = ty.trim().rsplit(' ').next().unwrap_or(ty);
    Some(ty.rsplit("::").next().unwrap_or(ty).to_owned())
}

/// The methods of each type in the crate (by the name its `impl` blocks give it), and its
/// `with_` methods that take `self`.
fn methods() -> (
    BTreeMap<String, BTreeSet<String>>,
    BTreeMap<String, Vec<String>>,
) {
    let (mut all, mut with) = (BTreeMap::new(), BTreeMap::<String, Vec<String>>::new());
    for file in sources(&crate_src("toolnexus")) {
        let text = fs::read_to_string(&file).expect("readable source");
        // The type whose `impl` block is open, and the depth of braces it opened at.
        let (mut current, mut depth) = (None::<(String, i32)>, 0i32);
        let code = code(&text);
        let lines: Vec<&str> = code.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let opened = impl_type(line);
            let before = depth;
            depth += line.matches('{').count() as i32 - line.matches('}').count() as i32;
            if let Some(ty) = opened {
                current = Some((ty, before));
                continue;
            }
            if current.as_ref().is_some_and(|(_, at)| depth <= *at) {
                current = None;
                continue;
            }
            let Some((ty, _)) = &current else { continue };
            let Some(at) = line.find("fn ") else { continue };
            let name: String = line[at + 3..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            // `fn name(self …` or `fn name(mut self …`, on this line or, for a signature
            // that rustfmt split, the next.
            let signature = match lines.get(i + 1) {
                Some(next) if line.trim_end().ends_with('(') => format!("{line}{}", next.trim()),
                _ => (*line).to_owned(),
            };
            let takes_self =
                signature[at..].contains("(self") || signature[at..].contains("(mut self");
            if name.starts_with("with_") && takes_self && line.contains("pub fn") {
                with.entry(ty.clone()).or_default().push(name.clone());
            }
            all.entry(ty.clone())
                .or_insert_with(BTreeSet::new)
                .insert(name);
        }
    }
    (all, with)
}

#[test]
fn configured_types_take_bare_setters() {
    let (all, with) = methods();
    let mut offenders = Vec::new();
    for ty in CONFIGURED {
        assert!(
            all.contains_key(*ty),
            "no `impl {ty}` found: update CONFIGURED"
        );
        for setter in with.get(*ty).into_iter().flatten() {
            let bare = &setter["with_".len()..];
            if !all[*ty].contains(bare) {
                offenders.push(format!("{ty}::{setter}"));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "a configured type's setter is bare unless its bare name is a getter of the type \
         (ARCHITECTURE.md, \"Setters\"); rename: {offenders:?}"
    );
}

#[test]
fn the_impl_reader_names_the_type() {
    assert_eq!(impl_type("impl McpServer {").as_deref(), Some("McpServer"));
    assert_eq!(
        impl_type("impl<T: Clone> Toolkit<T> {").as_deref(),
        Some("Toolkit")
    );
    assert_eq!(
        impl_type("impl fmt::Debug for OAuth {").as_deref(),
        Some("OAuth")
    );
    assert_eq!(impl_type("        impl $ty {").as_deref(), Some("$ty"));
    assert_eq!(
        impl_type("impl<T> ConversationStore for Arc<T> where T: Send {").as_deref(),
        Some("Arc")
    );
    assert_eq!(impl_type("implements {"), None);
    assert_eq!(impl_type("impl Trait for X;"), None);
}
