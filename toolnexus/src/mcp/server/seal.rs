//! The sealed `requestState` of a suspended call (MCP 2026-07-28, SEP-2322).
//!
//! The client echoes the state back verbatim on its retry, so the server reads it as
//! attacker-controlled input. It is sealed with AES-256-GCM (authenticated encryption:
//! nothing in it can be read or changed without the key) and binds the tool's name, a
//! digest of the call's arguments, the pending request's id, the caller it was issued to
//! (session and principal, `caller.rs`) and an expiry; opening it checks each of them. It
//! also carries a random id, which its retry spends (`spent.rs`): a state runs once.
//!
//! Token: `tn1.` then base64url (no padding) of a 4-byte key fingerprint, a 12-byte random
//! nonce and the ciphertext with its tag. The prefix and the fingerprint are bound into
//! the associated data, so a token cannot be moved to another format or key.

use std::fmt;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use aes_gcm::aead::{Aead as _, KeyInit as _, Payload};
use aes_gcm::{Aes256Gcm, Nonce};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hkdf::Hkdf;
use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

const PREFIX: &str = "tn1.";
const KDF_INFO: &[u8] = b"toolnexus/request-state/v1/aes-256-gcm";
const FINGERPRINT_INFO: &[u8] = b"toolnexus/request-state/v1/fingerprint";
const FINGERPRINT_LEN: usize = 4;
const NONCE_LEN: usize = 12;
const TAG_LEN: usize = 16;
/// The claims' format: 2 added the caller and the id (a state of format 1 is refused, and
/// its client calls the tool anew).
pub(crate) const VERSION: u8 = 2;

/// The shortest secret [`StateKey::new`] accepts, in bytes.
pub const MIN_STATE_SECRET_BYTES: usize = 32;

/// How long a sealed `requestState` stays valid unless
/// [`McpServer::state_ttl`](crate::mcp::McpServer::state_ttl) says otherwise:
/// 10 minutes.
pub const DEFAULT_STATE_TTL: Duration = Duration::from_secs(600);

/// The key that seals and opens the `requestState` of suspended calls served to MCP
/// 2026-07-28 clients.
///
/// Give every replica of a deployment the same key (through
/// [`McpServer::state_key`](crate::mcp::McpServer::state_key)), so that any
/// of them accepts the states the others sealed, and the same store
/// ([`McpServer::store`](crate::mcp::McpServer::store), features `sqlite` or
/// `postgres`), so that a state whose retry ran on one is refused on all of them (a state
/// runs once). Without one, a server uses a random key
/// made once per process ([`StateKey::process`]): states survive neither a restart nor a
/// trip to another replica, and such a retry is refused (the client calls the tool anew).
///
/// The key is derived from the secret with HKDF-SHA256; `Debug` shows only a fingerprint.
#[derive(Clone)]
pub struct StateKey(Arc<KeyInner>);

struct KeyInner {
    cipher: Aes256Gcm,
    fingerprint: [u8; FINGERPRINT_LEN],
}

/// A secret too short to make a [`StateKey`] from.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
#[error(
    "a requestState secret must be at least {min} bytes of secret randomness, got {len} (make one with `openssl rand -hex 32`)",
    min = MIN_STATE_SECRET_BYTES
)]
pub struct StateKeyError {
    /// How many bytes the secret had.
    pub len: usize,
}

impl StateKey {
    /// The key derived from `secret`, which must be at least
    /// [`MIN_STATE_SECRET_BYTES`] long (any bytes: a hex or base64 string is fine).
    pub fn new(secret: impl AsRef<[u8]>) -> Result<StateKey, StateKeyError> {
        let secret = secret.as_ref();
        if secret.len() < MIN_STATE_SECRET_BYTES {
            return Err(StateKeyError { len: secret.len() });
        }
        let hkdf = Hkdf::<Sha256>::new(None, secret);
        let mut key = [0u8; 32];
        // 32 bytes is far below HKDF-SHA256's limit of 255 × 32: this cannot fail.
        let _ = hkdf.expand(KDF_INFO, &mut key);
        let mut hasher = Sha256::new();
        hasher.update(FINGERPRINT_INFO);
        hasher.update(key);
        let digest = hasher.finalize();
        let mut fingerprint = [0u8; FINGERPRINT_LEN];
        fingerprint.copy_from_slice(&digest[..FINGERPRINT_LEN]);
        let cipher = Aes256Gcm::new(&key.into());
        Ok(StateKey(Arc::new(KeyInner {
            cipher,
            fingerprint,
        })))
    }

    /// A fresh random key.
    pub fn random() -> StateKey {
        let mut secret = [0u8; 32];
        random_bytes(&mut secret);
        // A 32-byte secret is long enough.
        StateKey::new(secret).unwrap_or_else(|_| unreachable!("32 bytes are enough"))
    }

    /// The random key this process uses for every server that was given none: made on
    /// first use, the same for every [`McpServer`](crate::mcp::McpServer) in the process,
    /// gone when the process exits.
    pub fn process() -> StateKey {
        static KEY: OnceLock<StateKey> = OnceLock::new();
        KEY.get_or_init(StateKey::random).clone()
    }

    /// A short, non-secret name of the key (hex), to tell keys apart in logs.
    pub fn fingerprint(&self) -> String {
        self.0
            .fingerprint
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    fn aad(fingerprint: &[u8]) -> Vec<u8> {
        let mut aad = PREFIX.as_bytes().to_vec();
        aad.extend_from_slice(fingerprint);
        aad
    }

    /// Seals `claims` into an opaque token.
    pub(crate) fn seal(&self, claims: &Claims) -> String {
        // A struct of strings and numbers always serializes.
        let plain = serde_json::to_vec(claims).unwrap_or_default();
        let mut nonce = [0u8; NONCE_LEN];
        random_bytes(&mut nonce);
        let aad = Self::aad(&self.0.fingerprint);
        let sealed = self
            .0
            .cipher
            .encrypt(
                &Nonce::from(nonce),
                Payload {
                    msg: &plain,
                    aad: &aad,
                },
            )
            .unwrap_or_default();
        let mut raw = Vec::with_capacity(FINGERPRINT_LEN + NONCE_LEN + sealed.len());
        raw.extend_from_slice(&self.0.fingerprint);
        raw.extend_from_slice(&nonce);
        raw.extend_from_slice(&sealed);
        format!("{PREFIX}{}", URL_SAFE_NO_PAD.encode(raw))
    }

    /// Seals the state of a suspended call of `tool` with `args`, as the server does, and
    /// opens it again as the retry does; `true` when it opened. For the benchmarks only.
    #[doc(hidden)]
    pub fn seal_and_open(&self, tool: &str, args: &serde_json::Value) -> bool {
        let digest = args_digest(args);
        let claims = Claims {
            version: VERSION,
            tool: tool.to_owned(),
            args: digest.clone(),
            request: "req-00000000000000000000000000000000".to_owned(),
            kind: "input".to_owned(),
            field: Some("answer".to_owned()),
            call: None,
            pending: None,
            caller: String::new(),
            id: Claims::new_id(),
            expires: Claims::expiring_in(DEFAULT_STATE_TTL),
        };
        let token = self.seal(&claims);
        let digest = args_digest(args);
        self.open(&token, tool, &digest, "")
            .is_ok_and(|c| c == claims)
    }

    /// Opens a token and checks it against the call it came back with and its caller's
    /// binding (`""`: neither session nor principal).
    pub(crate) fn open(
        &self,
        token: &str,
        tool: &str,
        args_digest: &str,
        caller: &str,
    ) -> Result<Claims, StateError> {
        let body = token.strip_prefix(PREFIX).ok_or(StateError::Malformed)?;
        let raw = URL_SAFE_NO_PAD
            .decode(body)
            .map_err(|_| StateError::Malformed)?;
        if raw.len() < FINGERPRINT_LEN + NONCE_LEN + TAG_LEN {
            return Err(StateError::Malformed);
        }
        let (fingerprint, rest) = raw.split_at(FINGERPRINT_LEN);
        let (nonce, sealed) = rest.split_at(NONCE_LEN);
        if fingerprint != self.0.fingerprint {
            return Err(StateError::OtherKey);
        }
        let mut nonce_bytes = [0u8; NONCE_LEN];
        nonce_bytes.copy_from_slice(nonce);
        let aad = Self::aad(fingerprint);
        let plain = self
            .0
            .cipher
            .decrypt(
                &Nonce::from(nonce_bytes),
                Payload {
                    msg: sealed,
                    aad: &aad,
                },
            )
            .map_err(|_| StateError::Altered)?;
        let claims: Claims = serde_json::from_slice(&plain).map_err(|_| StateError::Altered)?;
        if claims.version != VERSION {
            return Err(StateError::Malformed);
        }
        if claims.tool != tool {
            return Err(StateError::OtherTool);
        }
        if claims.args != args_digest {
            return Err(StateError::OtherArguments);
        }
        if claims.caller != caller {
            return Err(StateError::OtherCaller);
        }
        if now_ms() >= claims.expires {
            return Err(StateError::Expired);
        }
        Ok(claims)
    }
}

impl fmt::Debug for StateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("StateKey")
            .field(&self.fingerprint())
            .finish()
    }
}

fn random_bytes(buf: &mut [u8]) {
    if let Err(error) = getrandom::fill(buf) {
        // Without the operating system's randomness no key or nonce is safe to use.
        panic!("the operating system's random number generator failed: {error}");
    }
}

/// What a sealed state says about the call that made it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Claims {
    #[serde(rename = "v")]
    pub(crate) version: u8,
    /// The tool's name.
    #[serde(rename = "t")]
    pub(crate) tool: String,
    /// The base64url SHA-256 of the call's canonical arguments.
    #[serde(rename = "a")]
    pub(crate) args: String,
    /// The pending request's id: the answer the retry makes carries it.
    #[serde(rename = "r")]
    pub(crate) request: String,
    /// The pending request's kind.
    #[serde(rename = "k")]
    pub(crate) kind: String,
    /// The form's only field, whose value the answer carries alone.
    #[serde(rename = "f", default, skip_serializing_if = "Option::is_none")]
    pub(crate) field: Option<String>,
    /// The call id of the first round, which every later round runs with.
    #[serde(rename = "c", default, skip_serializing_if = "Option::is_none")]
    pub(crate) call: Option<String>,
    /// When the state expires, in milliseconds since the Unix epoch.
    #[serde(rename = "e")]
    pub(crate) expires: u64,
    /// The pending request whole, as the tool raised it (its `data` may carry state the
    /// client must neither read nor change, such as a halted inner agent's run): the
    /// retry hands it back to the tool beside the answer.
    #[serde(rename = "q", default, skip_serializing_if = "Option::is_none")]
    pub(crate) pending: Option<Box<crate::tool::request::Request>>,
    /// The binding of the caller the state was issued to (`caller.rs`); `""` when the
    /// call came with neither a session nor a principal.
    #[serde(rename = "b", default, skip_serializing_if = "String::is_empty")]
    pub(crate) caller: String,
    /// A random id (128 bits, hex), which the retry spends (`spent.rs`).
    #[serde(rename = "n")]
    pub(crate) id: String,
}

impl Claims {
    pub(crate) fn expiring_in(ttl: Duration) -> u64 {
        now_ms().saturating_add(u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX))
    }

    /// A fresh random state id.
    pub(crate) fn new_id() -> String {
        let mut bytes = [0u8; 16];
        random_bytes(&mut bytes);
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// The digest a state binds the arguments by.
pub(crate) fn args_digest(args: &serde_json::Value) -> String {
    URL_SAFE_NO_PAD.encode(crate::tool::approval::digest(args))
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Why a `requestState` was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StateError {
    Malformed,
    OtherKey,
    Altered,
    OtherTool,
    OtherArguments,
    OtherCaller,
    Expired,
    Spent,
}

impl StateError {
    /// A stable code for the reason, as the server's log and trace give it.
    pub(crate) fn code(self) -> &'static str {
        match self {
            StateError::Malformed => "malformed",
            StateError::OtherKey => "other_key",
            StateError::Altered => "altered",
            StateError::OtherTool => "other_tool",
            StateError::OtherArguments => "other_arguments",
            StateError::OtherCaller => "other_caller",
            StateError::Expired => "expired",
            StateError::Spent => "spent",
        }
    }
}

impl fmt::Display for StateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            StateError::Malformed => "is not a requestState this server made",
            StateError::OtherKey => {
                "was sealed under another key (by another server, or by this one before a restart; replicas must share their `StateKey`)"
            }
            StateError::Altered => "was altered after this server sealed it",
            StateError::OtherTool => "was made for another tool",
            StateError::OtherArguments => "was made for a call with other arguments",
            StateError::OtherCaller => {
                "was issued to another session or principal than the one presenting it"
            }
            StateError::Expired => "has expired",
            StateError::Spent => "has already been used: its retry ran",
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn claims(ttl: Duration) -> Claims {
        Claims {
            version: VERSION,
            tool: "deploy".to_owned(),
            args: args_digest(&json!({"service": "api"})),
            request: "req-1".to_owned(),
            kind: "input".to_owned(),
            field: Some("answer".to_owned()),
            call: Some("7".to_owned()),
            expires: Claims::expiring_in(ttl),
            pending: Some(Box::new(
                crate::Request::approval("Deploy?")
                    .with_id("req-1")
                    .with_data(json!({"secret": "inner-state"})),
            )),
            caller: "c0ffee".to_owned(),
            id: "00112233445566778899aabbccddeeff".to_owned(),
        }
    }

    impl Claims {
        fn with_expiry(mut self, expires: u64) -> Claims {
            self.expires = expires;
            self
        }
    }

    #[test]
    fn a_state_opens_only_for_its_own_call_key_and_time() {
        let key = StateKey::new([7u8; 32]).unwrap();
        let digest = args_digest(&json!({"service": "api"}));
        let token = key.seal(&claims(DEFAULT_STATE_TTL));
        assert!(token.starts_with("tn1."));
        // Nothing readable: neither the tool's name nor the request id.
        let raw = URL_SAFE_NO_PAD.decode(&token[4..]).unwrap();
        let text = String::from_utf8_lossy(&raw);
        assert!(
            !text.contains("deploy") && !text.contains("req-1") && !text.contains("inner-state"),
            "{text}"
        );
        let opened = key.open(&token, "deploy", &digest, "c0ffee").unwrap();
        assert_eq!(
            opened,
            claims(DEFAULT_STATE_TTL).with_expiry(opened.expires)
        );
        // The same secret (a replica) opens it; another secret does not.
        let replica = StateKey::new([7u8; 32]).unwrap();
        assert!(replica.open(&token, "deploy", &digest, "c0ffee").is_ok());
        let other = StateKey::new([8u8; 32]).unwrap();
        assert_eq!(
            other.open(&token, "deploy", &digest, "c0ffee"),
            Err(StateError::OtherKey)
        );
        assert_eq!(
            key.open(&token, "undeploy", &digest, "c0ffee"),
            Err(StateError::OtherTool)
        );
        // Bound to its caller: another session or principal, or none, cannot use it.
        for stranger in ["", "c0ffef"] {
            assert_eq!(
                key.open(&token, "deploy", &digest, stranger),
                Err(StateError::OtherCaller)
            );
        }
        let elsewhere = args_digest(&json!({"service": "db"}));
        assert_eq!(
            key.open(&token, "deploy", &elsewhere, "c0ffee"),
            Err(StateError::OtherArguments)
        );
        // Every flipped byte past the fingerprint is caught by the tag.
        for index in FINGERPRINT_LEN..raw.len() {
            let mut flipped = raw.clone();
            flipped[index] ^= 1;
            let forged = format!("tn1.{}", URL_SAFE_NO_PAD.encode(&flipped));
            assert_eq!(
                key.open(&forged, "deploy", &digest, "c0ffee"),
                Err(StateError::Altered),
                "byte {index}"
            );
        }
        assert_eq!(
            key.open("tn1.!!", "deploy", &digest, "c0ffee"),
            Err(StateError::Malformed)
        );
        let expired = key.seal(&claims(Duration::ZERO));
        assert_eq!(
            key.open(&expired, "deploy", &digest, "c0ffee"),
            Err(StateError::Expired)
        );
    }

    #[test]
    fn short_secrets_are_refused_and_keys_do_not_print() {
        let error = StateKey::new("short").unwrap_err();
        assert_eq!(error.len, 5);
        assert!(error.to_string().contains("at least 32 bytes"));
        let key = StateKey::new([1u8; 40]).unwrap();
        assert_eq!(
            format!("{key:?}"),
            format!("StateKey({:?})", key.fingerprint())
        );
        assert_ne!(StateKey::random().fingerprint(), key.fingerprint());
        assert_eq!(
            StateKey::process().fingerprint(),
            StateKey::process().fingerprint()
        );
    }
}
