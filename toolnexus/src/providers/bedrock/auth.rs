//! How [`Bedrock`](crate::providers::Bedrock) finds its region and credentials, and signs
//! a request: AWS's own crates do all of it. `aws-config` runs the standard credential
//! chain (environment, shared profile files, web identity, ECS and EC2 instance
//! metadata), `aws-sigv4` computes the Signature Version 4 headers of each attempt.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use aws_credential_types::Credentials;
use aws_credential_types::provider::{ProvideCredentials, SharedCredentialsProvider};
use aws_sigv4::http_request::{SignableBody, SignableRequest, SigningSettings, sign};
use aws_sigv4::sign::v4;
use futures_util::FutureExt as _;

use crate::model::ModelError;
use crate::providers::common::http::Sign;

pub(crate) const PROVIDER: &str = "Bedrock";
/// The name requests are signed for (the service's signing name).
const SERVICE: &str = "bedrock";
/// Credentials this close to their expiry are fetched again.
const REFRESH_BEFORE: Duration = Duration::from_secs(300);

/// What to set when no credentials are found.
pub(crate) const CREDENTIALS_HELP: &str = "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY \
     (with AWS_SESSION_TOKEN for temporary ones), or AWS_PROFILE to a profile of \
     ~/.aws/credentials or ~/.aws/config, or AWS_WEB_IDENTITY_TOKEN_FILE with AWS_ROLE_ARN; \
     on EC2, ECS or EKS the role of the instance or task is used. A Bedrock API key goes in \
     AWS_BEARER_TOKEN_BEDROCK; credentials can also be given with .credentials(..)";

/// The region from the environment (`AWS_REGION`, then `AWS_DEFAULT_REGION`), else from
/// the shared profile (`AWS_PROFILE`, or `default`, of `~/.aws/config`), read by
/// `aws-config`'s own profile loader.
pub(crate) fn region_from_env() -> Option<String> {
    for var in ["AWS_REGION", "AWS_DEFAULT_REGION"] {
        if let Ok(region) = std::env::var(var)
            && !region.trim().is_empty()
        {
            return Some(region.trim().to_owned());
        }
    }
    // The profile loader reads the files synchronously: its future is ready at once.
    use aws_config::meta::region::ProvideRegion as _;
    aws_config::profile::ProfileFileRegionProvider::new()
        .region()
        .now_or_never()
        .flatten()
        .map(|region| region.to_string())
}

/// The error for a missing region.
pub(crate) fn no_region() -> ModelError {
    ModelError::new(format!(
        "{PROVIDER}: no AWS region: set AWS_REGION (e.g. us-east-1), or a `region` in the \
         profile of ~/.aws/config, or call .with_region(..)"
    ))
}

/// Where the credentials come from, and the last ones it gave (refreshed near expiry).
#[derive(Clone)]
pub(crate) struct CredentialSource {
    provider: Option<SharedCredentialsProvider>,
    cached: Arc<tokio::sync::Mutex<Option<Credentials>>>,
}

impl fmt::Debug for CredentialSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.provider {
            Some(_) => "given provider",
            None => "default chain",
        };
        f.debug_struct("CredentialSource")
            .field("from", &what)
            .finish()
    }
}

impl CredentialSource {
    /// The standard chain of `aws-config`, built on first use.
    pub(crate) fn chain() -> Self {
        CredentialSource {
            provider: None,
            cached: Arc::default(),
        }
    }

    /// Credentials from `provider` (static ones, or a chain of the caller's).
    pub(crate) fn provider(provider: SharedCredentialsProvider) -> Self {
        CredentialSource {
            provider: Some(provider),
            cached: Arc::default(),
        }
    }

    /// Static credentials.
    pub(crate) fn fixed(key: &str, secret: &str, token: Option<String>) -> Self {
        let credentials = Credentials::new(key, secret, token, None, "toolnexus");
        CredentialSource::provider(SharedCredentialsProvider::new(credentials))
    }

    /// Credentials valid for a while yet: the cached ones, else fresh ones from the source.
    pub(crate) async fn get(&self, region: &str) -> Result<Credentials, ModelError> {
        let mut cached = self.cached.lock().await;
        if let Some(credentials) = cached.as_ref()
            && credentials
                .expiry()
                .is_none_or(|at| at > SystemTime::now() + REFRESH_BEFORE)
        {
            return Ok(credentials.clone());
        }
        let fetched = match &self.provider {
            Some(provider) => provider.provide_credentials().await,
            None => {
                let chain =
                    aws_config::default_provider::credentials::DefaultCredentialsChain::builder()
                        .region(aws_config::Region::new(region.to_owned()))
                        .build()
                        .await;
                chain.provide_credentials().await
            }
        };
        let credentials = fetched.map_err(|error| {
            ModelError::with_source(
                format!("{PROVIDER}: no AWS credentials were found: {CREDENTIALS_HELP}"),
                error,
            )
        })?;
        *cached = Some(credentials.clone());
        Ok(credentials)
    }
}

/// Signs each attempt with AWS Signature Version 4 (`aws-sigv4`).
pub(crate) struct SigV4 {
    pub(crate) credentials: Credentials,
    pub(crate) region: String,
}

impl Sign for SigV4 {
    fn sign(
        &self,
        url: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Result<Vec<(String, String)>, ModelError> {
        let failed = |error: &dyn std::error::Error| {
            ModelError::new(format!(
                "{PROVIDER}: the request could not be signed: {error} (nothing was sent)"
            ))
        };
        let identity = self.credentials.clone().into();
        let params = v4::SigningParams::builder()
            .identity(&identity)
            .region(&self.region)
            .name(SERVICE)
            .time(SystemTime::now())
            .settings(SigningSettings::default())
            .build()
            .map_err(|e| failed(&e))?
            .into();
        let request = SignableRequest::new(
            "POST",
            url,
            headers.iter().copied(),
            SignableBody::Bytes(body),
        )
        .map_err(|e| failed(&e))?;
        let (instructions, _signature) =
            sign(request, &params).map_err(|e| failed(&e))?.into_parts();
        let (headers, _query) = instructions.into_parts();
        Ok(headers
            .into_iter()
            .map(|header| (header.name().to_owned(), header.value().to_owned()))
            .collect())
    }
}
