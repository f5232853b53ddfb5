//! The skeleton every provider fills in: a [`Spec`] (its name, key variable, base URL,
//! how it sends its key) builds the [`ProviderHttp`] from a key or the environment, and
//! [`turn`] runs one model turn for any [`Protocol`]: write the body, post it with
//! retries, then parse the response or read its stream. A provider file is left with its
//! wire mapping: the URL, the body, the response and the stream events.

use std::future::Future;

use serde::Serialize;

use crate::model::message::Message;
use crate::model::settings::ModelSettings;
use crate::model::{DeltaSink, Model, ModelError, Reply};
use crate::providers::common::http::{
    ApiKey, Auth, ProviderHttp, Sign, base_from_env, key_from_env,
};
use crate::providers::common::settings::{extra_fields, with_extra};
use crate::providers::common::sse::read_body;
use crate::schema::listing::Listing;
use crate::schema::profile::Profile;
use crate::tool::kit::Toolkit;

/// What sets one provider's endpoint and key apart from another's.
pub(crate) struct Spec {
    /// The provider's name, as errors say it (`"Anthropic"`).
    pub(crate) provider: &'static str,
    /// The public type, as the missing-key error names it (`"Anthropic"`).
    pub(crate) ty: &'static str,
    /// The environment variable holding the key (`ANTHROPIC_API_KEY`).
    pub(crate) key_var: &'static str,
    /// The environment variable that may hold a base URL (`ANTHROPIC_BASE_URL`).
    pub(crate) base_var: &'static str,
    /// The base URL when none is given.
    pub(crate) default_base: &'static str,
    /// How the key is sent.
    pub(crate) auth: Auth,
    /// Headers sent with every request (`anthropic-version`).
    pub(crate) headers: &'static [(&'static str, &'static str)],
}

impl Spec {
    /// The transport to `base_url`, with `key` if there is one.
    pub(crate) fn transport(
        &self,
        base_url: impl Into<String>,
        key: Option<ApiKey>,
    ) -> ProviderHttp {
        let mut http = ProviderHttp::new(self.provider, self.key_var, base_url, key, self.auth);
        for &(name, value) in self.headers {
            http = http.with_header(name, value);
        }
        http
    }

    /// The transport to the default base URL with this key.
    pub(crate) fn with_key(&self, key: impl Into<String>) -> ProviderHttp {
        self.transport(self.default_base, Some(ApiKey::new(key)))
    }

    /// The transport with the key from the environment (a missing one is an error naming
    /// the variable), to the base URL there when it is set, else the default.
    pub(crate) fn env_transport(&self) -> Result<ProviderHttp, ModelError> {
        let key = key_from_env(self.key_var, self.provider, self.ty)?;
        let base = base_from_env(self.base_var).unwrap_or_else(|| self.default_base.to_owned());
        Ok(self.transport(base, Some(key)))
    }
}

/// What one turn's request body is made from: the transcript, the toolkit on offer, the
/// settings (the model's, with the client's merged over them) and whether the turn is
/// streamed.
#[derive(Clone, Copy)]
pub(crate) struct Asked<'a> {
    pub(crate) transcript: &'a [Message],
    pub(crate) toolkit: &'a Toolkit,
    pub(crate) settings: &'a ModelSettings,
    pub(crate) stream: bool,
}

/// One provider's wire mapping, as [`turn`] drives it.
pub(crate) trait Protocol: Sync {
    /// The URL of one turn (`stream`: the streamed form).
    fn url(&self, stream: bool) -> String;

    /// The JSON body of one turn, as `asked`. A setting the provider cannot honour is an
    /// error here, before anything is sent.
    fn body(&self, asked: Asked<'_>) -> Result<Vec<u8>, ModelError>;

    /// The turn in a whole (non-streamed) response body.
    fn parse(&self, body: &[u8]) -> Result<Reply, ModelError>;

    /// The turn read from a streamed response (server-sent events for most providers:
    /// [`Events::new`](crate::providers::common::sse::Events::new)), each piece passed to `sink`.
    fn stream<'a>(
        &'a self,
        response: reqwest::Response,
        sink: DeltaSink<'a>,
    ) -> impl Future<Output = Result<Reply, ModelError>> + Send + 'a;

    /// The provider's structured output ([`ModelSettings::output`]), if it has one.
    const OUTPUT: Option<crate::providers::common::output::Dialect> = None;

    /// What signs each attempt of this turn's request (AWS SigV4), if the provider signs
    /// its requests; found before the first attempt (credentials may need fetching).
    fn signer(&self) -> impl Future<Output = Result<Option<Box<dyn Sign>>, ModelError>> + Send {
        std::future::ready(Ok(None))
    }
}

/// One provider's request body and response parsing, reached from outside the crate
/// (benchmarks, tests): the [`Protocol`] of every provider, with the model's own
/// settings. Not part of the API; sealed, so only the providers here implement it.
#[doc(hidden)]
pub trait Wire: sealed::Sealed {
    /// The JSON body of the request for one turn, with the model's own settings.
    fn request_body(
        &self,
        transcript: &[Message],
        toolkit: &Toolkit,
        stream: bool,
    ) -> Result<Vec<u8>, ModelError>;

    /// The turn in a (non-streamed) response body.
    fn parse_response(&self, body: &[u8]) -> Result<Reply, ModelError>;
}

mod sealed {
    /// Keeps [`Wire`](super::Wire) to this crate's providers.
    pub trait Sealed {}
}

impl<P: Protocol> sealed::Sealed for P {}

impl<P: Protocol + Model> Wire for P {
    fn request_body(
        &self,
        transcript: &[Message],
        toolkit: &Toolkit,
        stream: bool,
    ) -> Result<Vec<u8>, ModelError> {
        let default;
        let own = match self.describe().settings {
            Some(own) => own,
            None => {
                default = ModelSettings::default();
                &default
            }
        };
        self.body(Asked {
            transcript,
            toolkit,
            settings: own,
            stream,
        })
    }

    fn parse_response(&self, body: &[u8]) -> Result<Reply, ModelError> {
        self.parse(body)
    }
}

/// The parts of a provider the skeleton drives: its wire mapping, its transport and its
/// model's name.
pub(crate) struct Turn<'a, P> {
    pub(crate) provider: &'a P,
    pub(crate) http: &'a ProviderHttp,
    pub(crate) model: &'a str,
    /// The model's own settings.
    pub(crate) settings: &'a ModelSettings,
}

impl<P: Protocol> Turn<'_, P> {
    /// Runs one turn: the body (with `client`'s settings over the model's), the request
    /// with its retries, then the reply.
    pub(crate) async fn run(
        self,
        transcript: &[Message],
        toolkit: &Toolkit,
        client: Option<&ModelSettings>,
        sink: Option<DeltaSink<'_>>,
    ) -> Result<Reply, ModelError> {
        let stream = sink.is_some();
        let merged;
        let settings = match client {
            Some(client) if !client.is_empty() => {
                merged = client.over(self.settings);
                &merged
            }
            _ => self.settings,
        };
        let body = self.provider.body(Asked {
            transcript,
            toolkit,
            settings,
            stream,
        })?;
        let body = with_extra(self.http.provider, body, extra_fields(settings))?;
        let body = match &settings.output {
            None => body,
            Some(format) => {
                let provider = self.http.provider;
                let Some(dialect) = P::OUTPUT else {
                    return Err(crate::providers::common::settings::refuse(
                        provider,
                        "output",
                        "this provider has no structured output; a typed run uses the output \
                         tool with it (`OutputMode::Tool`)",
                    ));
                };
                let fields = crate::providers::common::output::fields(provider, dialect, format)?;
                with_extra(provider, body, Some(&fields))?
            }
        };
        let url = self.provider.url(stream);
        let signer = self.provider.signer().await?;
        let response = self
            .http
            .post(&url, body, self.model, signer.as_deref())
            .await?;
        let name = self.http.provider;
        match sink {
            None => {
                let body = read_body(response, name).await?;
                self.provider.parse(body.as_ref())
            }
            Some(sink) => self.provider.stream(response, sink).await,
        }
    }
}

/// Defines a provider's [`Spec`] as `SPEC` and its `new` and `from_env` constructors,
/// which build the transport from it and hand it, with the model's name, to the
/// provider's own `over(http, model)`.
macro_rules! provider_spec {
    ($ty:ident {
        provider: $provider:expr,
        key_var: $key_var:literal,
        base_var: $base_var:literal,
        default_base: $default_base:literal,
        auth: $auth:expr,
        headers: $headers:expr $(,)?
    }) => {
        const SPEC: $crate::providers::common::skeleton::Spec =
            $crate::providers::common::skeleton::Spec {
                provider: $provider,
                ty: stringify!($ty),
                key_var: $key_var,
                base_var: $base_var,
                default_base: $default_base,
                auth: $auth,
                headers: $headers,
            };

        impl $ty {
            #[doc = concat!(stringify!($ty), " with this key, at `", $default_base, "`.")]
            pub fn new(api_key: impl Into<String>, model: impl Into<String>) -> Self {
                $ty::over(SPEC.with_key(api_key), model.into())
            }

            #[doc = concat!(
                        stringify!($ty), " with the key in `", $key_var, "`, at `", $base_var,
                        "` when that is set. A missing key is an error that names the variable."
                    )]
            pub fn from_env(
                model: impl Into<String>,
            ) -> Result<Self, $crate::model::ModelError> {
                Ok($ty::over(SPEC.env_transport()?, model.into()))
            }
        }
    };
}
pub(crate) use provider_spec;

/// A provider's settings builders, over its `settings: ModelSettings` field:
/// `with_settings`, `max_tokens` and the `settings` getter.
macro_rules! model_settings {
    ($ty:ident, $max_tokens:literal) => {
        impl $ty {
            /// Sets how the model is asked (see [`ModelSettings`](crate::ModelSettings)),
            /// field by field over what is already set. A client's
            /// [`settings`](crate::Client::settings) merge over these in turn. A setting
            /// this provider cannot honour fails the turn before anything is sent.
            #[must_use]
            pub fn with_settings(
                mut self,
                settings: $crate::model::settings::ModelSettings,
            ) -> Self {
                self.settings = settings.over(&self.settings);
                self
            }

            #[doc = $max_tokens]
            #[must_use]
            pub fn max_tokens(mut self, max_tokens: u32) -> Self {
                self.settings.max_tokens = Some(max_tokens);
                self
            }

            /// The settings the model is asked with (before a client's are merged over).
            pub fn settings(&self) -> &$crate::model::settings::ModelSettings {
                &self.settings
            }
        }
    };
}
pub(crate) use model_settings;

/// A provider's `strict` builder, over its `strict: bool` field, and the listing profile
/// it picks.
macro_rules! strict_setting {
    ($ty:ident, $plain:expr, $strict:expr, $doc:literal) => {
        impl $ty {
            #[doc = $doc]
            #[must_use]
            pub fn strict(mut self, strict: bool) -> Self {
                self.strict = strict;
                self
            }

            fn profile(&self) -> $crate::schema::profile::Profile {
                if self.strict { $strict } else { $plain }
            }
        }
    };
}
pub(crate) use strict_setting;

/// The toolkit's shared listing for `profile`, or none for an empty toolkit (providers
/// refuse an empty `tools` array or ignore it).
pub(crate) fn listing(toolkit: &Toolkit, profile: Profile) -> Option<Listing> {
    (!toolkit.is_empty()).then(|| toolkit.listing(profile))
}

/// The request `body` as JSON bytes.
pub(crate) fn encode(provider: &str, body: &impl Serialize) -> Result<Vec<u8>, ModelError> {
    serde_json::to_vec(body)
        .map_err(|e| ModelError::with_source(format!("{provider}: could not write the request"), e))
}
