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
/// The file holds refresh tokens, and should live in the user's own configuration
/// directory; use one file per server. It is replaced atomically: each save writes a new
/// temporary file beside it (a random name, created exclusively, readable and writable
/// by its owner only on Unix), then renames it over the file, so nothing planted in the
/// folder (a link, a file someone else can read) ever receives a token. A symbolic link
/// where the file is kept is refused, by [`load`](TokenStore::load) and
/// [`save`](TokenStore::save) alike, rather than followed.
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

    /// Runs `work` on the file's path on a blocking thread.
    async fn blocking<T: Send + 'static>(
        &self,
        what: &str,
        work: impl FnOnce(&Path) -> std::io::Result<T> + Send + 'static,
    ) -> Result<T, AuthError> {
        let path = self.path.clone();
        tokio::task::spawn_blocking(move || work(&path))
            .await
            .map_err(|e| self.failed(what, e))?
            .map_err(|e| self.failed(what, e))
    }
}

/// Fails when `path` is a symbolic link.
fn refuse_link(path: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => Err(std::io::Error::other(
            "it is a symbolic link, which a token file may not be; refusing to follow it",
        )),
        _ => Ok(()),
    }
}

/// The file's bytes; `None` when there is no file. A link is refused (on Unix also when
/// one appears after the check: the file is opened with `O_NOFOLLOW`).
fn read(path: &Path) -> std::io::Result<Option<Vec<u8>>> {
    use std::io::Read as _;
    refuse_link(path)?;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NOFOLLOW);
    let mut file = match options.open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        #[cfg(unix)]
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return refuse_link(path).map(|_| None),
        Err(e) => return Err(e),
    };
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    Ok(Some(bytes))
}

/// Replaces the file at `path` with `bytes`: a new temporary file beside it (tempfile's:
/// a random name, `O_EXCL`, mode 0600 on Unix), synced, then renamed over it.
fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    refuse_link(path)?;
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut file = tempfile::Builder::new()
        .prefix(".toolnexus-tokens-")
        .tempfile_in(dir)?;
    file.write_all(bytes)?;
    file.as_file().sync_all()?;
    // A link that appeared since is replaced by the rename, not followed.
    refuse_link(path)?;
    file.persist(path).map(|_| ()).map_err(|e| e.error)
}

#[async_trait::async_trait]
impl TokenStore for FileTokenStore {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        match self.blocking("read", read).await? {
            Some(bytes) => serde_json::from_slice(&bytes)
                .map(Some)
                .map_err(|e| self.failed("read", e)),
            None => Ok(None),
        }
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        let bytes = serde_json::to_vec(&credentials).map_err(|e| self.failed("write", e))?;
        self.blocking("write", move |path| write(path, &bytes))
            .await
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
