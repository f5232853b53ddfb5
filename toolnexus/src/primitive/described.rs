//! The builder methods and getters a [`Prompt`](crate::primitive::Prompt) and a
//! [`Resource`](crate::primitive::Resource) share: a title, a description, and the
//! completion of their arguments (a template's variables), over an `Arc<Def>` with
//! `title`, `description` and `completers` fields.

/// Implements the shared methods on `$Type` (a tuple struct over `Arc<Def>`), whose docs
/// call it a `$noun` made by `#[$attr]`, completing its `$part`s (named `$param`).
macro_rules! described {
    ($Type:ident, $noun:literal, $attr:literal, $part:literal, $param:ident) => {
        impl $Type {
            fn update(self, f: impl FnOnce(&mut Def)) -> Self {
                let mut def = Arc::unwrap_or_clone(self.0);
                f(&mut def);
                $Type(Arc::new(def))
            }

            #[doc = concat!("The same ", $noun, ", with a human-readable title.")]
            #[must_use]
            pub fn with_title(self, title: impl Into<String>) -> Self {
                let title = title.into();
                self.update(|def| def.title = Some(title))
            }

            #[doc = concat!("The same ", $noun, ", described by `description`.")]
            #[must_use]
            pub fn with_description(self, description: impl Into<String>) -> Self {
                let description = description.into();
                self.update(|def| def.description = description)
            }

            #[doc = concat!(
                "The same ", $noun, ", whose ", $part, " `", stringify!($param),
                "` is completed from `values` (those that start with what was typed, ",
                "ignoring case)."
            )]
            #[must_use]
            pub fn with_completion_values<I, S>(self, $param: impl Into<String>, values: I) -> Self
            where
                I: IntoIterator<Item = S>,
                S: Into<String>,
            {
                let $param = $param.into();
                self.update(|def| def.completers.set($param, Completer::values(values)))
            }

            #[doc = concat!(
                "The same ", $noun, ", whose ", $part, " `", stringify!($param),
                "` is completed by `complete`."
            )]
            #[must_use]
            pub fn with_completion<F, I, S>(self, $param: impl Into<String>, complete: F) -> Self
            where
                F: Fn(&CompletionRequest) -> I + Send + Sync + 'static,
                I: IntoIterator<Item = S>,
                S: Into<String>,
            {
                let $param = $param.into();
                self.update(|def| def.completers.set($param, Completer::function(complete)))
            }

            pub(crate) fn with_completer(self, $param: &str, completer: Completer) -> Self {
                self.update(|def| def.completers.set($param.to_owned(), completer))
            }

            /// The human-readable title, if any.
            pub fn title(&self) -> Option<&str> {
                self.0.title.as_deref()
            }

            #[doc = concat!("The description (from the doc comment of a `#[", $attr, "]` function).")]
            pub fn description(&self) -> &str {
                &self.0.description
            }

            #[doc = concat!("The values to offer for one of its ", $part, "s.")]
            pub fn complete(&self, request: &CompletionRequest) -> Completion {
                self.0.completers.complete(request)
            }
        }
    };
}
pub(crate) use described;
