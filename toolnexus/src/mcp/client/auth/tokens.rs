//! Where a login's tokens are kept: the SDK's credential-store trait, in memory by
//! default, or in a file.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rmcp::transport::auth::AuthError;

/// A store for one server's login: the client ID and the token response (access and
/// refresh token, expiry, granted scopes). The official SDK's `CredentialStore` trait;
/// implement it (with `#[async_trait::async_trait]`) for a keyring or a database.
pub use rmcp::transport::auth::CredentialStore as TokenStore;
/// The default [`TokenStore`]: in this process's memory, gone when it exits.
pub use rmcp::transport::auth::InMemoryCredentialStore as MemoryTokenStore;
/// What a [`TokenStore`] keeps. Its `Debug` output hides the tokens.
pub use rmcp::transport::auth::StoredCredentials;

/// A [`TokenStore`] in a JSON file, so that a login survives a restart.
///
/// The file holds refresh tokens: it is written with owner-only permissions (on Unix),
/// replaced atomically (written beside it, then renamed), and should live in the user's
/// own configuration directory. Use one file per server.
#[derive(Debug, Clone)]
pub struct FileTokenStore {
    path: PathBuf,
}

impl FileTokenStore {
    /// A store in the file at `path` (created at the first login).
    pub fn new(path: impl Into<PathBuf>) -> FileTokenStore {
        FileTokenStore { path: path.into() }
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn failed(&self, what: &str, error: impl std::fmt::Display) -> AuthError {
        AuthError::CredentialStoreError(format!(
            "could not {what} the token file {}: {error}",
            self.path.display()
        ))
    }
}

#[async_trait::async_trait]
impl TokenStore for FileTokenStore {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        match tokio::fs::read(&self.path).await {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map(Some)
                .map_err(|e| self.failed("read", e)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(self.failed("read", e)),
        }
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        let bytes = serde_json::to_vec(&credentials).map_err(|e| self.failed("write", e))?;
        let mut temporary = self.path.clone().into_os_string();
        temporary.push(".tmp");
        let temporary = PathBuf::from(temporary);
        let mut options = tokio::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        options.mode(0o600);
        let mut file = options
            .open(&temporary)
            .await
            .map_err(|e| self.failed("write", e))?;
        tokio::io::AsyncWriteExt::write_all(&mut file, &bytes)
            .await
            .map_err(|e| self.failed("write", e))?;
        file.sync_all().await.map_err(|e| self.failed("write", e))?;
        drop(file);
        tokio::fs::rename(&temporary, &self.path)
            .await
            .map_err(|e| self.failed("write", e))
    }

    async fn clear(&self) -> Result<(), AuthError> {
        match tokio::fs::remove_file(&self.path).await {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(self.failed("remove", e)),
            _ => Ok(()),
        }
    }
}

/// A shared store, as the SDK's manager takes one (by value).
#[derive(Clone)]
pub(super) struct SharedStore(pub(super) Arc<dyn TokenStore>);

#[async_trait::async_trait]
impl TokenStore for SharedStore {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        self.0.load().await
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        self.0.save(credentials).await
    }

    async fn clear(&self) -> Result<(), AuthError> {
        self.0.clear().await
    }

    async fn on_refresh_token_rejected(
        &self,
        credentials: &StoredCredentials,
    ) -> Result<(), AuthError> {
        self.0.on_refresh_token_rejected(credentials).await
    }

    async fn acquire_refresh_guard(
        &self,
    ) -> Result<Option<rmcp::transport::auth::CredentialRefreshGuard>, AuthError> {
        self.0.acquire_refresh_guard().await
    }
}
