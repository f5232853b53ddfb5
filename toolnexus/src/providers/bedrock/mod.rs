//! [`Bedrock`]: Amazon Bedrock's Converse and ConverseStream APIs.

mod auth;
mod request;
mod response;

use std::borrow::Cow;

use aws_credential_types::provider::{ProvideCredentials, SharedCredentialsProvider};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::value::RawValue;

use crate::model::settings::ModelSettings;
use crate::model::{DeltaSink, ModelError, Reply};
use crate::providers::bedrock::auth::{
    CredentialSource, PROVIDER, SigV4, no_region, region_from_env,
};
use crate::providers::bedrock::request::{
    Body, Family, ToolConfig, asked, cache_point, cached_system, cached_tools, caches, family,
    messages, tools,
};
use crate::providers::common::http::{ApiKey, Auth, ProviderHttp, Sign, base_from_env};
use crate::providers::common::skeleton::{Asked, Protocol, encode, model_settings};
use crate::providers::common::wire::mark_tail;
use crate::providers::{http_settings, turn_model};

/// What a model id keeps unescaped in the URL path (RFC 3986's unreserved characters).
const PATH_SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// The variable a Bedrock API key is read from.
const KEY_VAR: &str = "AWS_BEARER_TOKEN_BEDROCK";

/// Amazon Bedrock's Converse API (`POST {base}/model/{modelId}/converse`, and
/// `…/converse-stream` streamed), for every model Bedrock serves with tools: Claude,
/// Amazon Nova, Llama, Mistral, Cohere, gpt-oss and the rest.
///
/// ```no_run
/// use toolnexus::providers::Bedrock;
/// use toolnexus::{ModelSettings, Reasoning};
///
/// # fn demo() -> Result<(), toolnexus::ModelError> {
/// // AWS_REGION, and credentials from the standard chain (environment, profile, web
/// // identity, ECS or EC2 instance role).
/// let claude = Bedrock::from_env("us.anthropic.claude-sonnet-4-5-20250929-v1:0")?
///     .with_settings(ModelSettings::new().reasoning(Reasoning::budget(4_096)));
/// let nova = Bedrock::new("eu-west-1", "amazon.nova-pro-v1:0")
///     .credentials("AKIA…", "secret", None);
/// # Ok(()) }
/// ```
///
/// **Signing and credentials.** Each request is signed with AWS Signature Version 4
/// (`aws-sigv4`), with credentials from `aws-config`'s standard chain: `AWS_ACCESS_KEY_ID`
/// and `AWS_SECRET_ACCESS_KEY` (and `AWS_SESSION_TOKEN`), the shared profile
/// (`AWS_PROFILE`, `~/.aws/credentials`, `~/.aws/config`, `credential_process`), web
/// identity (`AWS_WEB_IDENTITY_TOKEN_FILE`, `AWS_ROLE_ARN`), then the ECS task's or EC2
/// instance's role. They are fetched on the first turn and again before they expire;
/// when none are found, the turn fails before anything is sent, saying what to set. A
/// Bedrock API key (`AWS_BEARER_TOKEN_BEDROCK`, or [`Bedrock::api_key`]) is sent as
/// a bearer token instead. The endpoint is `https://bedrock-runtime.{region}.amazonaws.com`,
/// or `AWS_ENDPOINT_URL_BEDROCK_RUNTIME` / `AWS_ENDPOINT_URL` when set.
///
/// **The transcript**: system messages become `system` blocks; calls are `toolUse`
/// blocks and results `toolResult` blocks (`status: "error"` on failures) with their
/// images (`image`) and PDFs (`document`) inside; audio is described in words.
///
/// **Reasoning** ([`ModelSettings::reasoning`]): Claude thinks within a budget
/// (`Reasoning::budget(n)` → `additionalModelRequestFields.thinking`), Amazon Nova and
/// gpt-oss at an effort (`low`, `medium`, `high`). The turn's `reasoningContent` blocks,
/// with their signatures, are kept in the transcript ([`NativeTurn`](crate::model::NativeTurn))
/// and sent back before the turn's tool calls, as Claude requires.
///
/// **Prompt caching** is on for the models that take cache points (Claude 3.5 Haiku, 3.7
/// Sonnet and every Claude from 4 on; Amazon Nova): a cache point after the system prompt
/// (or, for Claude without one, after the tools), one at the end of the conversation and
/// one where the previous turn's was. [`Bedrock::prompt_caching`] overrides it.
#[derive(Clone, Debug)]
pub struct Bedrock {
    http: ProviderHttp,
    model: String,
    region: String,
    settings: ModelSettings,
    caching: Option<bool>,
    credentials: CredentialSource,
}

http_settings!(Bedrock);
model_settings!(
    Bedrock,
    "Caps the tokens of each turn (`inferenceConfig.maxTokens`); the same as [`ModelSettings::max_tokens`]."
);
turn_model!(Bedrock, "aws.bedrock");

/// The endpoint of `region`.
fn endpoint(region: &str) -> String {
    format!("https://bedrock-runtime.{region}.amazonaws.com")
}

impl Bedrock {
    /// Bedrock in `region`, with credentials from the standard chain (found on the first
    /// turn), at the region's endpoint.
    pub fn new(region: impl Into<String>, model: impl Into<String>) -> Self {
        let region = region.into();
        let mut http = ProviderHttp::new(PROVIDER, KEY_VAR, endpoint(&region), None, Auth::Bearer);
        http.auth_hint = Some(
            "the AWS credentials were refused, or may not invoke this model (bedrock:InvokeModel); \
             check AWS_ACCESS_KEY_ID / AWS_PROFILE, or the credentials given to .credentials(..)",
        );
        Bedrock {
            http,
            model: model.into(),
            region,
            settings: ModelSettings::default(),
            caching: None,
            credentials: CredentialSource::chain(),
        }
    }

    /// Bedrock with everything from the environment: the region from `AWS_REGION`,
    /// `AWS_DEFAULT_REGION` or the shared profile's `region` (none is an error that says
    /// what to set); a Bedrock API key from `AWS_BEARER_TOKEN_BEDROCK` when set, else
    /// credentials from the standard chain (checked on the first turn); the endpoint
    /// from `AWS_ENDPOINT_URL_BEDROCK_RUNTIME` or `AWS_ENDPOINT_URL` when set.
    pub fn from_env(model: impl Into<String>) -> Result<Self, ModelError> {
        let region = region_from_env().ok_or_else(no_region)?;
        let mut bedrock = Bedrock::new(region, model);
        if let Some(key) = base_from_env(KEY_VAR) {
            bedrock.http.key = Some(ApiKey::new(key.trim()));
        }
        let base = base_from_env("AWS_ENDPOINT_URL_BEDROCK_RUNTIME")
            .or_else(|| base_from_env("AWS_ENDPOINT_URL"));
        if let Some(base) = base {
            bedrock.http.set_base_url(base);
        }
        Ok(bedrock)
    }

    /// Sets the region requests are signed for (and sent to, unless a base URL was set).
    #[must_use]
    pub fn with_region(mut self, region: impl Into<String>) -> Self {
        let region = region.into();
        if self.http.base_url == endpoint(&self.region) {
            self.http.set_base_url(endpoint(&region));
        }
        self.region = region;
        self
    }

    /// Signs with these credentials (an access key and its secret, and a session token
    /// for temporary credentials) instead of the standard chain's.
    #[must_use]
    pub fn credentials(
        mut self,
        access_key_id: impl AsRef<str>,
        secret_access_key: impl AsRef<str>,
        session_token: Option<String>,
    ) -> Self {
        self.credentials = CredentialSource::fixed(
            access_key_id.as_ref(),
            secret_access_key.as_ref(),
            session_token,
        );
        self.http.key = None;
        self
    }

    /// Signs with credentials from `provider` (any of `aws-config`'s providers, or one of
    /// your own), fetched on the first turn and again before they expire.
    #[must_use]
    pub fn credentials_provider(mut self, provider: impl ProvideCredentials + 'static) -> Self {
        self.credentials = CredentialSource::provider(SharedCredentialsProvider::new(provider));
        self.http.key = None;
        self
    }

    /// Turns cache points on or off, whatever the model (by default they are on for the
    /// models that take them).
    #[must_use]
    pub fn prompt_caching(mut self, on: bool) -> Self {
        self.caching = Some(on);
        self
    }

    /// The region requests are signed for.
    pub fn region(&self) -> &str {
        &self.region
    }
}

impl Protocol for Bedrock {
    fn url(&self, stream: bool) -> String {
        let operation = if stream {
            "converse-stream"
        } else {
            "converse"
        };
        let model = utf8_percent_encode(&self.model, PATH_SEGMENT);
        format!("{}/model/{model}/{operation}", self.http.base_url)
    }

    fn body(&self, asking: Asked<'_>) -> Result<Vec<u8>, ModelError> {
        let asked = asked(&self.model, asking.settings, asking.toolkit)?;
        let (system, mut messages) = messages(asking.transcript);
        let cache = self.caching.unwrap_or_else(|| caches(&self.model));
        let listing = tools(asking.toolkit);
        // Claude caches the tools with the system prompt, which follows them; without a
        // system prompt the tools get the cache point.
        let tools_point = cache && system.is_empty() && family(&self.model).0 == Family::Claude;
        let owned = match &listing {
            Some(listing) if tools_point => cached_tools(listing.raw()),
            _ => None,
        };
        let tools: Option<Cow<'_, RawValue>> = match (owned, &listing) {
            (Some(owned), _) => Some(Cow::Owned(owned)),
            (None, Some(listing)) => Some(Cow::Borrowed(listing.raw())),
            (None, None) => None,
        };
        let system = if cache { cached_system(system) } else { system };
        if cache {
            mark_tail(&mut messages, cache_point);
        }
        let body = Body {
            messages,
            system,
            inference_config: asked.inference,
            tool_config: tools.map(|tools| ToolConfig {
                tools,
                tool_choice: asked.tool_choice,
            }),
            additional_model_request_fields: asked.additional,
        };
        encode(PROVIDER, &body)
    }

    fn parse(&self, body: &[u8]) -> Result<Reply, ModelError> {
        response::parse(body)
    }

    async fn stream(
        &self,
        response: reqwest::Response,
        sink: DeltaSink<'_>,
    ) -> Result<Reply, ModelError> {
        response::stream(response, sink).await
    }

    async fn signer(&self) -> Result<Option<Box<dyn Sign>>, ModelError> {
        if self.http.key.is_some() {
            return Ok(None);
        }
        if self.region.trim().is_empty() {
            return Err(no_region());
        }
        let credentials = self.credentials.get(&self.region).await?;
        Ok(Some(Box::new(SigV4 {
            credentials,
            region: self.region.clone(),
        })))
    }
}
