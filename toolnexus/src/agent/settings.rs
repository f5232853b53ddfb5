//! [`Client::settings`]: the model settings every turn of a client is asked with.

use crate::agent::client::Client;
use crate::model::settings::ModelSettings;

impl Client {
    /// Sets the settings every model turn of this client is asked with, merged over the
    /// model's own field by field (see [`ModelSettings::over`]). Setting them again
    /// merges the new ones over these.
    ///
    /// A model that takes no settings (a [`FnModel`](crate::model::FnModel), a model of your
    /// own that does not implement [`Model::complete_with`](crate::Model::complete_with))
    /// fails its turns while any is set, rather than ignore them.
    #[must_use]
    pub fn settings(mut self, settings: ModelSettings) -> Self {
        self.settings = std::sync::Arc::new(settings.over(&self.settings));
        self
    }
}
