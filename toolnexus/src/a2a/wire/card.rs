//! Reading a peer's Agent Card: its name, its skills, and the JSON-RPC endpoint to call
//! (1.0 `supportedInterfaces`, or a 0.3 card's `url`).

use serde_json::Value;

use super::Dialect;

/// Where a peer's JSON-RPC endpoint is and which protocol version it speaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Endpoint {
    pub(crate) url: String,
    pub(crate) dialect: Dialect,
    /// The interface's `tenant`, sent in every request when set (A2A 1.0 §8.3.2).
    pub(crate) tenant: Option<String>,
}

/// One skill of a card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Skill {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) description: String,
}

/// What a client needs from a peer's Agent Card.
#[derive(Debug, Clone)]
pub(crate) struct PeerCard {
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) skills: Vec<Skill>,
    pub(crate) endpoint: Endpoint,
    pub(crate) streaming: bool,
}

/// `scheme://host[:port]` of `url`.
pub(crate) fn origin(url: &str) -> Option<&str> {
    let after_scheme = url.find("://")? + 3;
    let end = url[after_scheme..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |at| after_scheme + at);
    Some(&url[..end])
}

/// `url` made absolute against the card's URL (a path is taken from the card's origin).
fn absolute(url: &str, card_url: &str) -> Result<String, String> {
    if url.starts_with("http://") || url.starts_with("https://") {
        return Ok(url.to_owned());
    }
    if url.starts_with('/') {
        let base = origin(card_url).ok_or_else(|| format!("`{card_url}` is not a URL"))?;
        return Ok(format!("{base}{url}"));
    }
    Err(format!("`{url}` is not an http:// or https:// URL"))
}

fn major(version: &str) -> Option<u64> {
    version.trim().split('.').next()?.parse().ok()
}

impl PeerCard {
    /// Checks and reads the card fetched from `card_url`.
    pub(crate) fn parse(card: &Value, card_url: &str) -> Result<PeerCard, String> {
        let Value::Object(map) = card else {
            return Err(format!(
                "the card is not a JSON object: {}",
                super::short(card)
            ));
        };
        let name = map
            .get("name")
            .and_then(Value::as_str)
            .filter(|n| !n.trim().is_empty())
            .ok_or("the card has no `name`")?
            .to_owned();
        let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
        let skills = match map.get("skills") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(at, skill)| {
                    let id = text(skill, "id")
                        .filter(|s| !s.is_empty())
                        .or_else(|| text(skill, "name").filter(|s| !s.is_empty()))
                        .ok_or_else(|| format!("skill {at} of the card has no `id` or `name`"))?;
                    let name = text(skill, "name").unwrap_or_else(|| id.clone());
                    let description = text(skill, "description")
                        .filter(|d| !d.is_empty())
                        .unwrap_or_else(|| name.clone());
                    Ok(Skill {
                        id,
                        name,
                        description,
                    })
                })
                .collect::<Result<_, String>>()?,
            Some(other) => {
                return Err(format!(
                    "the card's `skills` must be an array, not {}",
                    super::short(other)
                ));
            }
        };
        let streaming = card
            .pointer("/capabilities/streaming")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        Ok(PeerCard {
            description: text(card, "description").unwrap_or_default(),
            endpoint: endpoint(card, card_url)?,
            name,
            skills,
            streaming,
        })
    }
}

/// The JSON-RPC interface to call: the first 1.x one of `supportedInterfaces`, else the
/// first 0.x one, else a 0.3 card's `url`, else the card's origin (the contract's
/// fallback).
fn endpoint(card: &Value, card_url: &str) -> Result<Endpoint, String> {
    let interfaces = card
        .get("supportedInterfaces")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let jsonrpc: Vec<&Value> = interfaces
        .iter()
        .filter(|i| {
            i.get("protocolBinding")
                .and_then(Value::as_str)
                .is_some_and(|b| b.eq_ignore_ascii_case("JSONRPC"))
        })
        .collect();
    let version = |i: &Value| {
        i.get("protocolVersion")
            .and_then(Value::as_str)
            .and_then(major)
    };
    let chosen = jsonrpc
        .iter()
        .find(|i| version(i) == Some(1))
        .map(|i| (*i, Dialect::V1))
        .or_else(|| {
            jsonrpc
                .iter()
                .find(|i| version(i) == Some(0))
                .map(|i| (*i, Dialect::V03))
        });
    if let Some((interface, dialect)) = chosen {
        let url = interface
            .get("url")
            .and_then(Value::as_str)
            .ok_or("a JSON-RPC interface of the card has no `url`")?;
        return Ok(Endpoint {
            url: absolute(url, card_url)?,
            dialect,
            tenant: interface
                .get("tenant")
                .and_then(Value::as_str)
                .filter(|t| !t.is_empty())
                .map(str::to_owned),
        });
    }
    let preferred = card.get("preferredTransport").and_then(Value::as_str);
    if let Some(url) = card.get("url").and_then(Value::as_str)
        && preferred.is_none_or(|p| p.eq_ignore_ascii_case("JSONRPC"))
    {
        return Ok(Endpoint {
            url: absolute(url, card_url)?,
            dialect: Dialect::V03,
            tenant: None,
        });
    }
    if !interfaces.is_empty() || preferred.is_some() {
        let offered: Vec<&str> = interfaces
            .iter()
            .filter_map(|i| i.get("protocolBinding").and_then(Value::as_str))
            .chain(preferred)
            .collect();
        return Err(format!(
            "the card offers no JSON-RPC interface (it offers {})",
            offered.join(", ")
        ));
    }
    let base = origin(card_url).ok_or_else(|| format!("`{card_url}` is not a URL"))?;
    Ok(Endpoint {
        url: format!("{base}/"),
        dialect: Dialect::V03,
        tenant: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_1_0_interface_is_preferred_over_a_0_3_one() {
        let card = json!({"name": "x", "supportedInterfaces": [
            {"url": "http://a/v03", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
            {"url": "/v1", "protocolBinding": "JSONRPC", "protocolVersion": "1.0", "tenant": "t"},
        ]});
        let peer = PeerCard::parse(&card, "http://h:1/.well-known/agent-card.json").unwrap();
        assert_eq!(peer.endpoint.url, "http://h:1/v1");
        assert_eq!(peer.endpoint.dialect, Dialect::V1);
        assert_eq!(peer.endpoint.tenant.as_deref(), Some("t"));
    }

    #[test]
    fn a_0_3_card_and_the_contracts_fallback() {
        let card = json!({"name": "x", "url": "http://a/rpc", "protocolVersion": "0.3.0"});
        let peer = PeerCard::parse(&card, "http://h/card").unwrap();
        assert_eq!(
            (peer.endpoint.url.as_str(), peer.endpoint.dialect),
            ("http://a/rpc", Dialect::V03)
        );
        let bare = PeerCard::parse(&json!({"name": "x"}), "http://h:9/.well-known/a").unwrap();
        assert_eq!(bare.endpoint.url, "http://h:9/");
    }

    #[test]
    fn bad_cards_are_refused_with_the_reason() {
        let grpc = json!({"name": "x", "supportedInterfaces": [
            {"url": "http://a", "protocolBinding": "GRPC", "protocolVersion": "1.0"}]});
        let error = PeerCard::parse(&grpc, "http://h/").unwrap_err();
        assert!(
            error.contains("no JSON-RPC interface") && error.contains("GRPC"),
            "{error}"
        );
        assert!(
            PeerCard::parse(&json!({"skills": []}), "http://h/")
                .unwrap_err()
                .contains("name")
        );
        let skill = json!({"name": "x", "skills": [{"description": "no id"}]});
        assert!(
            PeerCard::parse(&skill, "http://h/")
                .unwrap_err()
                .contains("skill 0")
        );
    }
}
