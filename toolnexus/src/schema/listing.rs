//! [`Listing`]: a toolkit's tools in one provider's shape, built once and shared.

use std::fmt;
use std::ops::Deref;
use std::sync::{Arc, OnceLock};

use serde::{Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

/// A toolkit's tools in one provider's shape (see [`Toolkit::listing`]), built on first
/// use, cached on the toolkit and shared from then on.
///
/// Cloning a `Listing` is a reference-count increment, and its JSON text is serialized
/// once, on first use of [`Listing::json`], [`Listing::raw`] or `Serialize`. It
/// dereferences to the listing's `Value`, so `tools[0]["function"]["name"]` and
/// `==` against a `json!` value work as on a `Value`. A provider request body serialized
/// with `serde_json` can embed [`Listing::raw`] (or the `Listing` itself), which is
/// written out verbatim. That also means `serde_json::to_string_pretty(&listing)` keeps
/// the compact text: pretty-print [`Listing::value`] instead.
///
/// ```
/// use serde_json::json;
/// use toolnexus::{Tool, ToolResult, Toolkit};
/// use toolnexus::schema::profile::Profile;
///
/// let echo = Tool::new_sync("echo", "Echoes.", json!({"type": "object"}), |_, _| ToolResult::ok(""));
/// let toolkit = Toolkit::new().with(echo);
/// let tools = toolkit.listing(Profile::OpenAi);
/// assert_eq!(tools, toolkit.to_openai());
/// assert_eq!(tools[0]["function"]["name"], "echo");
///
/// // A request body: the listing's text is copied in as it is, not serialized again.
/// #[derive(serde::Serialize)]
/// struct Request<'a> { model: &'a str, tools: &'a serde_json::value::RawValue }
/// let body = serde_json::to_string(&Request { model: "m", tools: tools.raw() }).unwrap();
/// assert_eq!(body, format!(r#"{{"model":"m","tools":{}}}"#, tools.json()));
/// ```
///
/// [`Toolkit::listing`]: crate::Toolkit::listing
/// [`Toolkit::to_openai`]: crate::Toolkit::to_openai
#[derive(Clone)]
pub struct Listing(Arc<Inner>);

struct Inner {
    value: Value,
    text: OnceLock<Box<RawValue>>,
}

impl Listing {
    pub(crate) fn new(value: Value) -> Self {
        Listing(Arc::new(Inner {
            value,
            text: OnceLock::new(),
        }))
    }

    /// The listing as a JSON value.
    pub fn value(&self) -> &Value {
        &self.0.value
    }

    /// The listing as JSON text, serialized once.
    pub fn json(&self) -> &str {
        self.raw().get()
    }

    /// The listing as JSON text that `serde_json` writes out verbatim when it is part of a
    /// larger value (a field of type `&RawValue` in a request struct).
    pub fn raw(&self) -> &RawValue {
        self.0.text.get_or_init(|| {
            // A `Value` always serializes (its keys are strings); `null` is never reached.
            serde_json::value::to_raw_value(&self.0.value)
                .unwrap_or_else(|_| RawValue::NULL.to_owned())
        })
    }

    /// The listing as a `Value` of its own: the value itself when this is the last handle
    /// to it, a copy otherwise.
    pub fn into_value(self) -> Value {
        match Arc::try_unwrap(self.0) {
            Ok(inner) => inner.value,
            Err(shared) => shared.value.clone(),
        }
    }
}

impl Deref for Listing {
    type Target = Value;

    fn deref(&self) -> &Value {
        self.value()
    }
}

impl AsRef<Value> for Listing {
    fn as_ref(&self) -> &Value {
        self.value()
    }
}

impl PartialEq for Listing {
    fn eq(&self, other: &Listing) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.value() == other.value()
    }
}

impl PartialEq<Value> for Listing {
    fn eq(&self, other: &Value) -> bool {
        self.value() == other
    }
}

impl PartialEq<Listing> for Value {
    fn eq(&self, other: &Listing) -> bool {
        self == other.value()
    }
}

impl From<Listing> for Value {
    fn from(listing: Listing) -> Value {
        listing.into_value()
    }
}

impl Serialize for Listing {
    /// Writes the JSON text serialized once (see [`Listing::json`]): `serde_json` copies it
    /// verbatim, and `serde_json::to_value` reads it back. A serializer for another format
    /// should serialize [`Listing::value`] instead.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.raw().serialize(serializer)
    }
}

impl fmt::Debug for Listing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.value(), f)
    }
}

impl fmt::Display for Listing {
    /// The JSON text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.json())
    }
}
