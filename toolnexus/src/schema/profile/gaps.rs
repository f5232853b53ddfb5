//! What a profile lists without enforcing: a constraint of the canonical schema (a bound,
//! a format, a tuple's positions) that the provider's dialect cannot state, so the profile
//! says it in the description instead. The provider may then send arguments the tool
//! refuses; [`Toolkit::warnings`](crate::Toolkit::warnings) reports each such place, per tool
//! and field, so a user learns it before a model does.
//!
//! The profile functions stay `&Value → Result<Value, ProfileError>`; the places they do
//! not enforce are collected beside them, for the duration of one [`Profile::run`].

use std::cell::RefCell;

use serde_json::Value;

use super::{Profile, ProfileError};

thread_local! {
    static GAPS: RefCell<Option<Vec<ProfileError>>> = const { RefCell::new(None) };
}

/// A schema rewritten by a profile, and the constraints it lists without enforcing.
pub(crate) struct Profiled {
    /// The rewritten schema.
    pub(crate) schema: Value,
    /// One [`ProfileError`] (not a refusal) per constraint not enforced.
    pub(crate) gaps: Vec<ProfileError>,
}

/// Runs `apply`, collecting the gaps it reports with [`not_enforced`].
pub(super) fn collect(
    apply: impl FnOnce() -> Result<Value, ProfileError>,
) -> Result<Profiled, ProfileError> {
    let outer = GAPS.with(|gaps| gaps.replace(Some(Vec::new())));
    let result = apply();
    let mut gaps = GAPS.with(|gaps| gaps.replace(outer)).unwrap_or_default();
    gaps.dedup();
    result.map(|schema| Profiled { schema, gaps })
}

/// Reports that the constraint at `path` is listed but not enforced.
pub(crate) fn not_enforced(profile: Profile, path: &str, message: impl Into<String>) {
    GAPS.with(|gaps| {
        if let Some(gaps) = gaps.borrow_mut().as_mut() {
            gaps.push(ProfileError::gap(profile, path, message));
        }
    });
}

/// The keywords that decide which values are valid (rather than annotate them): moving one
/// into the description leaves the provider free to send what the tool refuses.
const ASSERTIONS: &[&str] = &[
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "enum",
    "const",
    "contains",
    "propertyNames",
    "patternProperties",
    "dependentRequired",
];

/// Reports the assertions among keywords moved into the description at `path`.
pub(crate) fn moved(profile: Profile, path: &str, notes: &[(String, Value)]) {
    let moved: Vec<String> = notes
        .iter()
        .filter(|(key, _)| ASSERTIONS.contains(&key.as_str()))
        .map(|(key, value)| format!("`{key}: {value}`"))
        .collect();
    if !moved.is_empty() {
        not_enforced(
            profile,
            path,
            format!(
                "{} cannot be expressed here, so it is said in the description only",
                moved.join(", ")
            ),
        );
    }
}
