//! One server's login: when the server challenges, obtain tokens by the configured grant
//! (through the SDK's authorization manager), or park the login as a suspension.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use rmcp::transport::auth::{
    AuthClient, AuthError, AuthorizationCallback, AuthorizationManager, AuthorizationRequest,
    AuthorizationSession, ClientCredentialsConfig, JwtSigningAlgorithm, OAuthTokenResponse,
    ScopeUpgradeConfig, StoredCredentials, WWWAuthenticateParams,
};
use serde_json::{Value, json};

use super::tokens::SharedStore;
use super::{Grant, JwtAlgorithm, OAuth};
use crate::tool::request::{Answer, Request};

/// The `data[ELICITATION_DATA_KEY]` of a login suspension.
const LOGIN_MARK: &str = "login";

/// A login waiting for the host's answer.
struct Pending {
    request: Request,
    /// A first login's session (which holds the manager); `None` for a step-up, whose
    /// state stays in the manager.
    session: Option<AuthorizationSession>,
}

/// The login state of one server.
pub(crate) struct Login {
    url: String,
    config: OAuth,
    pub(crate) client: AuthClient<reqwest::Client>,
    gate: tokio::sync::Mutex<()>,
    failure: Mutex<Option<String>>,
    pending: Mutex<Option<Pending>>,
    logins: AtomicU32,
}

impl std::fmt::Debug for Login {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Login")
            .field("url", &self.url)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

async fn manager_for(url: &str, config: &OAuth) -> Result<AuthorizationManager, AuthError> {
    let mut manager = AuthorizationManager::new(url).await?;
    manager.set_credential_store(SharedStore(Arc::clone(&config.store)));
    let mut upgrades = ScopeUpgradeConfig::default();
    upgrades.max_upgrade_attempts = config.max_step_ups;
    manager.set_scope_upgrade_config(upgrades);
    Ok(manager)
}

impl Login {
    /// The login state for the server at `url`; a login kept in the store is picked up.
    pub(crate) async fn new(url: &str, config: OAuth) -> Result<Arc<Login>, String> {
        let mut manager = manager_for(url, &config)
            .await
            .map_err(|e| format!("the server URL cannot be used for a login: {e}"))?;
        if matches!(config.store.load().await, Ok(Some(_))) {
            // A stored login: discovery finds the authorization server again, so that
            // the tokens can be refreshed. A server that cannot be discovered now is
            // logged in to afresh at its first challenge.
            let _ = manager.initialize_from_store().await;
        }
        let http = crate::mcp::client::opening::transport_client()?;
        Ok(Arc::new(Login {
            url: url.to_owned(),
            config,
            client: AuthClient::new(http, manager),
            gate: tokio::sync::Mutex::new(()),
            failure: Mutex::new(None),
            pending: Mutex::new(None),
            logins: AtomicU32::new(0),
        }))
    }

    /// Why the last login failed, if it did (taken: each failure is reported once).
    pub(crate) fn take_failure(&self) -> Option<String> {
        lock(&self.failure).take()
    }

    fn fail(&self, message: String) -> AuthError {
        *lock(&self.failure) = Some(message.clone());
        AuthError::AuthorizationFailed(message)
    }

    /// How many logins (first ones and step-ups) have completed.
    pub(crate) fn logins(&self) -> u32 {
        self.logins.load(Ordering::Relaxed)
    }

    /// The configured bound on step-up logins.
    pub(crate) fn max_step_ups(&self) -> u32 {
        self.config.max_step_ups
    }

    /// The current access token, if there is one.
    pub(crate) async fn token(&self) -> Option<String> {
        self.client.get_access_token().await.ok()
    }

    /// Whether the token changed since a request was sent with `sent`.
    async fn superseded(&self, sent: Option<&str>) -> bool {
        matches!(self.token().await, Some(current) if Some(current.as_str()) != sent)
    }

    /// The suspension of a tool call waiting for a login, if there is one.
    pub(crate) fn pending_request(&self) -> Option<Request> {
        lock(&self.pending).as_ref().map(|p| p.request.clone())
    }

    /// Answers to a login suspension (`answer.id` is its request's): completes the login
    /// with the redirect URL in the answer's data. `None` when the answer is not for a
    /// login of this server.
    pub(crate) async fn answer(&self, answer: &Answer) -> Option<Result<(), String>> {
        let pending = {
            let mut slot = lock(&self.pending);
            if slot.as_ref().map(|p| p.request.id.as_str()) != Some(answer.id.as_str()) {
                return None;
            }
            slot.take()?
        };
        let _gate = self.gate.lock().await;
        let mut manager = self.client.auth_manager.lock().await;
        if !answer.ok {
            if let Some(session) = pending.session {
                *manager = session.auth_manager;
            }
            let reason = answer.reason.as_deref().unwrap_or("no reason given");
            return Some(Err(format!("the login was declined ({reason})")));
        }
        let redirect = match &answer.data {
            Some(Value::String(url)) => url.clone(),
            Some(Value::Object(map)) => map
                .get("redirect")
                .or_else(|| map.get("url"))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            _ => String::new(),
        };
        let result = match pending.session {
            Some(session) => {
                let result = session.handle_callback_url(&redirect).await.map(|_| ());
                *manager = session.auth_manager;
                result
            }
            None => exchange(&manager, &redirect).await,
        };
        Some(match result {
            Ok(()) => {
                self.logins.fetch_add(1, Ordering::Relaxed);
                Ok(())
            }
            Err(e) => Err(describe("completing the login", &e)),
        })
    }

    /// Obtains tokens after the server answered `401` with `challenge`. `sent` is the
    /// token the failed request carried; `tool_call` whether it was a `tools/call`.
    pub(crate) async fn authorize(
        &self,
        challenge: &str,
        sent: Option<&str>,
        tool_call: bool,
    ) -> Result<(), AuthError> {
        let _gate = self.gate.lock().await;
        if self.superseded(sent).await {
            return Ok(()); // Another request logged in meanwhile.
        }
        if lock(&self.pending).is_some() {
            return Err(AuthError::AuthorizationRequired);
        }
        let result = match &self.config.grant {
            Grant::Code => self.code_login(challenge, tool_call).await,
            Grant::ClientSecret { client_id, secret } => {
                let config = ClientCredentialsConfig::ClientSecret {
                    client_id: client_id.clone(),
                    client_secret: secret.0.clone(),
                    scopes: self.config.scopes.clone(),
                    resource: Some(self.url.clone()),
                };
                self.client_credentials(challenge, config).await
            }
            Grant::PrivateKeyJwt {
                client_id,
                key_pem,
                algorithm,
            } => {
                let config = ClientCredentialsConfig::PrivateKeyJwt {
                    client_id: client_id.clone(),
                    signing_key: key_pem.0.as_bytes().to_vec(),
                    signing_algorithm: sdk_algorithm(*algorithm),
                    token_endpoint_audience: None,
                    scopes: self.config.scopes.clone(),
                    resource: Some(self.url.clone()),
                };
                self.client_credentials(challenge, config).await
            }
            Grant::Enterprise { .. } => self.enterprise(challenge).await,
        };
        match result {
            Ok(()) => {
                self.logins.fetch_add(1, Ordering::Relaxed);
                Ok(())
            }
            Err(AuthError::AuthorizationRequired) => Err(AuthError::AuthorizationRequired),
            Err(e) => Err(self.fail(describe("logging in", &e))),
        }
    }

    /// Logs in again with a wider scope after the server answered `403
    /// insufficient_scope` with `challenge`.
    pub(crate) async fn step_up(
        &self,
        challenge: &str,
        sent: Option<&str>,
        tool_call: bool,
    ) -> Result<(), AuthError> {
        let _gate = self.gate.lock().await;
        if self.superseded(sent).await {
            return Ok(()); // Another request logged in meanwhile.
        }
        if !matches!(self.config.grant, Grant::Code) {
            // A machine client asks for its scopes again.
            drop(_gate);
            return self.authorize(challenge, None, tool_call).await;
        }
        let manager = self.client.auth_manager.lock().await;
        let base = url::Url::parse(&self.url).map_err(AuthError::from)?;
        let required = WWWAuthenticateParams::parse(challenge, &base)
            .scope
            .unwrap_or_default();
        if !manager.can_attempt_scope_upgrade().await {
            return Err(self.fail(format!(
                "the server still answers `403 insufficient_scope` (it requires `{required}`) after {} step-up logins; giving up",
                self.config.max_step_ups
            )));
        }
        let url = manager
            .request_scope_upgrade(&required)
            .await
            .map_err(|e| self.fail(describe("asking for a wider scope", &e)))?;
        if tool_call && self.config.suspend {
            drop(manager);
            self.park(url, &required, None);
            return Err(AuthError::AuthorizationRequired);
        }
        let redirect = self.ask(url).await?;
        match exchange(&manager, &redirect).await {
            Ok(()) => {
                self.logins.fetch_add(1, Ordering::Relaxed);
                Ok(())
            }
            Err(e) => Err(self.fail(describe("completing the step-up login", &e))),
        }
    }

    /// Runs the handler on `url`.
    async fn ask(&self, url: String) -> Result<String, AuthError> {
        let Some(handler) = &self.config.handler else {
            return Err(self.fail(
                "the server requires a login, and no authorization handler was given (`OAuth::new(handler)`)"
                    .to_owned(),
            ));
        };
        handler.authorize(url).await.map_err(|reason| {
            self.fail(format!(
                "the authorization handler gave no redirect: {reason}"
            ))
        })
    }

    fn park(&self, url: String, scope: &str, session: Option<AuthorizationSession>) {
        let prompt = if scope.is_empty() {
            "Log in to the MCP server to continue".to_owned()
        } else {
            format!("Log in to the MCP server to grant `{scope}`")
        };
        let request = Request::authorization(url, prompt).with_data(json!({
            super::super::ELICITATION_DATA_KEY: LOGIN_MARK,
            "server": self.url,
            "scope": scope,
        }));
        *lock(&self.pending) = Some(Pending { request, session });
    }

    async fn code_login(&self, challenge: &str, tool_call: bool) -> Result<(), AuthError> {
        let mut slot = self.client.auth_manager.lock().await;
        let placeholder = manager_for(&self.url, &self.config).await?;
        let mut manager = std::mem::replace(&mut *slot, placeholder);
        match manager
            .resolve_metadata_from_challenge(Some(challenge))
            .await
        {
            Ok(resolution) => manager.set_metadata(resolution.metadata),
            Err(mismatch @ AuthError::AuthorizationServerMismatch { .. }) => {
                match super::metadata::fallback(&self.url, &mismatch).await {
                    Ok(metadata) => manager.set_metadata(metadata),
                    Err(why) => {
                        *slot = manager;
                        return Err(AuthError::AuthorizationFailed(why));
                    }
                }
            }
            Err(e) => {
                *slot = manager;
                return Err(e);
            }
        }
        let config = &self.config;
        let mut request = AuthorizationRequest::new(config.redirect_uri.clone())
            .with_client_name(config.client_name.clone())
            .with_challenge(challenge);
        if config.scopes.is_empty() {
            request = request.with_initial_scope_selection();
        } else {
            request = request.with_scopes(config.scopes.iter().cloned());
        }
        if let Some(url) = &config.client_metadata_url {
            request = request.with_client_metadata_url(url.clone());
        }
        if let Some(id) = &config.client_id {
            request = request.with_preregistered_client(id.clone());
            if let Some(secret) = &config.client_secret {
                request = request.with_client_secret(secret.0.clone());
            }
        }
        let session = match AuthorizationSession::new(manager, request).await {
            Ok(session) => session,
            Err((manager, e)) => {
                *slot = manager;
                return Err(e);
            }
        };
        let url = session.get_authorization_url().to_owned();
        if tool_call && config.suspend {
            let scope = url::Url::parse(&url)
                .ok()
                .and_then(|u| {
                    u.query_pairs()
                        .find(|(k, _)| k == "scope")
                        .map(|(_, v)| v.into_owned())
                })
                .unwrap_or_default();
            self.park(url, &scope, Some(session));
            return Err(AuthError::AuthorizationRequired);
        }
        let redirect = match self.ask(url).await {
            Ok(redirect) => redirect,
            Err(e) => {
                *slot = session.auth_manager;
                return Err(e);
            }
        };
        let result = session.handle_callback_url(&redirect).await;
        *slot = session.auth_manager;
        result.map(|_| ())
    }

    async fn client_credentials(
        &self,
        challenge: &str,
        config: ClientCredentialsConfig,
    ) -> Result<(), AuthError> {
        let mut slot = self.client.auth_manager.lock().await;
        let placeholder = manager_for(&self.url, &self.config).await?;
        let mut manager = std::mem::replace(&mut *slot, placeholder);
        // The SDK's signed-assertion exchange is not `Send` (it keeps a form serializer
        // across an await), so it runs to completion on a blocking thread of its own.
        let runtime = tokio::runtime::Handle::current();
        let challenge = challenge.to_owned();
        let joined = tokio::task::spawn_blocking(move || {
            let result = runtime.block_on(async {
                let resolution = manager
                    .resolve_metadata_from_challenge(Some(&challenge))
                    .await?;
                manager.set_metadata(resolution.metadata);
                manager.validate_client_credentials_metadata(&config)?;
                manager.configure_client_credentials(&config)?;
                manager
                    .exchange_client_credentials(&config)
                    .await
                    .map(|_| ())
            });
            (manager, result)
        })
        .await;
        match joined {
            Ok((manager, result)) => {
                *slot = manager;
                result
            }
            Err(e) => Err(AuthError::InternalError(format!(
                "the client-credentials exchange stopped: {e}"
            ))),
        }
    }

    async fn enterprise(&self, challenge: &str) -> Result<(), AuthError> {
        use rmcp::transport::auth::enterprise::{
            EmaAuthorizationServer, EmaClientAuthentication, EmaExchangeRequest,
        };
        let Grant::Enterprise {
            id_token,
            idp_issuer,
            idp_token_endpoint,
            idp_client_id,
            client_id,
            client_secret,
        } = &self.config.grant
        else {
            return Err(AuthError::InternalError(
                "not an enterprise login".to_owned(),
            ));
        };
        let mut manager = self.client.auth_manager.lock().await;
        let resolution = manager
            .resolve_metadata_from_challenge(Some(challenge))
            .await?;
        let metadata = resolution.metadata;
        let issuer = metadata.issuer.clone().unwrap_or_default();
        let token_endpoint = metadata.token_endpoint.clone();
        manager.set_metadata(metadata);
        let idp = EmaAuthorizationServer::new(
            idp_issuer.clone(),
            idp_token_endpoint.clone(),
            idp_client_id.clone(),
        );
        let resource_as = EmaAuthorizationServer::new(issuer, token_endpoint, client_id.clone())
            .with_client_authentication(EmaClientAuthentication::ClientSecretBasic(
                oauth2::ClientSecret::new(client_secret.0.clone()),
            ));
        let http = rmcp::transport::auth::default_oauth_http_client()?;
        let token = EmaExchangeRequest::new_with_id_token(idp, resource_as, &self.url, &id_token.0)
            .with_scopes(self.config.scopes.iter().cloned())
            .exchange(&http, &http)
            .await
            .map_err(|e| AuthError::TokenExchangeFailed(e.to_string()))?;
        let mut response = json!({
            "access_token": token.access_token.secret(),
            "token_type": "Bearer",
        });
        if let Some(expires) = token.expires_in {
            response["expires_in"] = json!(expires.as_secs());
        }
        let response: OAuthTokenResponse = serde_json::from_value(response)
            .map_err(|e| AuthError::InternalError(e.to_string()))?;
        let received = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .ok();
        let stored = StoredCredentials::new(
            client_id.clone(),
            Some(response),
            token.scopes.iter().cloned().collect(),
            received,
        );
        self.config.store.save(stored).await?;
        manager.configure_client_id(client_id)?;
        Ok(())
    }
}

/// Completes a step-up: exchanges the code in `redirect` for a token.
async fn exchange(manager: &AuthorizationManager, redirect: &str) -> Result<(), AuthError> {
    let callback = AuthorizationCallback::from_redirect_url(redirect)?;
    manager
        .exchange_code_for_token_with_issuer(
            &callback.code,
            &callback.csrf_token,
            callback.issuer.as_deref(),
        )
        .await
        .map(|_| ())
}

fn sdk_algorithm(algorithm: JwtAlgorithm) -> JwtSigningAlgorithm {
    match algorithm {
        JwtAlgorithm::Rs256 => JwtSigningAlgorithm::RS256,
        JwtAlgorithm::Rs384 => JwtSigningAlgorithm::RS384,
        JwtAlgorithm::Rs512 => JwtSigningAlgorithm::RS512,
        JwtAlgorithm::Es256 => JwtSigningAlgorithm::ES256,
        JwtAlgorithm::Es384 => JwtSigningAlgorithm::ES384,
    }
}

/// What went wrong `while` doing something, in words that name the failing part.
fn describe(doing: &str, error: &AuthError) -> String {
    let what = match error {
        AuthError::RegistrationFailed(m) => {
            format!("the authorization server refused to register this client: {m}")
        }
        AuthError::TokenExchangeFailed(m) => format!("the token endpoint failed: {m}"),
        AuthError::TokenRefreshFailed(m) | AuthError::TokenRefreshRejected(m) => {
            format!("refreshing the token failed: {m}")
        }
        AuthError::ClientCredentialsError(m) => {
            format!("the token endpoint refused the client credentials: {m}")
        }
        AuthError::NoAuthorizationSupport => {
            "the server asked for a login but publishes no authorization server metadata".to_owned()
        }
        other => other.to_string(),
    };
    format!("{doing}: {what}")
}
