//! Sealed `requestState`s are bound to their caller and run once; handshake-era answers
//! count only for requests the server gave that session.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};

use super::Listening;
use super::wire::{Peer, StdioPeer, error, result, scratch};

const KEY: &str = "replicas-share-this-secret-of-40-bytes!!";

/// A `suspend_server` over HTTP writing its side effects to `dir/NAME.log` and its log
/// events to `dir/NAME.events`.
fn suspend_http(dir: &Path, name: &str, stateless: bool, env: &[(&str, &str)]) -> Listening {
    let (log, events) = files(dir, name);
    let mut vars = vec![
        ("SUSPEND_LOG", log.to_str().unwrap().to_owned()),
        ("SUSPEND_EVENTS", events.to_str().unwrap().to_owned()),
    ];
    vars.extend(env.iter().map(|(k, v)| (*k, (*v).to_owned())));
    let vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let mut args = vec!["--http", "127.0.0.1:0"];
    if stateless {
        args.push("--stateless");
    }
    Listening::start_with("suspend_server", &args, &vars)
}

fn files(dir: &Path, name: &str) -> (PathBuf, PathBuf) {
    (
        dir.join(format!("{name}.log")),
        dir.join(format!("{name}.events")),
    )
}

/// What the tools of server `name` did.
fn effects(dir: &Path, name: &str) -> Vec<String> {
    let text = std::fs::read_to_string(files(dir, name).0).unwrap_or_default();
    text.lines().map(str::to_owned).collect()
}

/// What server `name` logged.
fn events(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(files(dir, name).1).unwrap_or_default()
}

/// Whether a server's log says, inside a `tools/call` span, that a state was refused for
/// `reason`.
fn logged(log: &str, reason: &str) -> bool {
    log.lines()
        .any(|line| line.contains("[tools/call]") && line.ends_with(&format!("reason={reason}")))
}

fn repo() -> Value {
    json!({"name": "prod-db"})
}

/// The input request's key and the state of a 2026-07-28 call that asks.
fn asked(response: &Value) -> (String, String) {
    let answer = result(response);
    assert_eq!(answer["resultType"], "input_required", "{response}");
    let key = answer["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap();
    (
        key.clone(),
        answer["requestState"].as_str().unwrap().to_owned(),
    )
}

/// The retry params of an accepted answer to `key` with `state`.
fn accepted(key: &str, state: &str) -> Value {
    json!({
        "requestState": state,
        "inputResponses": {key: {"action": "accept", "content": {}}},
    })
}

fn text(response: &Value) -> &str {
    result(response)["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
}

/// Every refusal is this one error: nothing says why.
fn check_refusal(response: &Value, first: &mut Option<Value>) {
    let refusal = error(response).clone();
    assert_eq!(refusal["code"], -32602, "{response}");
    assert_eq!(
        refusal["data"],
        json!({"reason": "invalid_request_state"}),
        "{response}"
    );
    match first {
        Some(first) => assert_eq!(&refusal, first, "one fixed answer for every refusal"),
        None => *first = Some(refusal),
    }
}

#[tokio::test]
async fn a_state_runs_once_on_its_replica_and_on_another_sharing_the_store() {
    let dir = scratch("replay");
    let db = dir.join("spent.db");
    let env = [
        ("SUSPEND_KEY", KEY),
        ("SUSPEND_STORE", db.to_str().unwrap()),
    ];
    let a = suspend_http(&dir, "a", false, &env);
    let c = suspend_http(&dir, "c", true, &env);
    let on_a = Peer::modern(&a.url, json!({}));
    let on_c = Peer::modern(&c.url, json!({}));
    let (key, state) = asked(&on_a.call(1, "delete_repo", repo(), json!({})).await);

    // Approved on the replica: it runs there once.
    let ran = on_c
        .call(2, "delete_repo", repo(), accepted(&key, &state))
        .await;
    assert_eq!(text(&ran), "deleted prod-db");
    // The same state again, on either replica: refused, and nothing runs.
    let mut refusal = None;
    for (peer, id) in [(&on_a, 3), (&on_c, 4)] {
        let again = peer
            .call(id, "delete_repo", repo(), accepted(&key, &state))
            .await;
        check_refusal(&again, &mut refusal);
    }
    assert!(effects(&dir, "a").is_empty(), "{:?}", effects(&dir, "a"));
    assert_eq!(effects(&dir, "c"), ["delete prod-db"]);
    // The precise reason is in the servers' logs, inside the call's span.
    for server in ["a", "c"] {
        let log = events(&dir, server);
        assert!(logged(&log, "spent"), "{server}: {log}");
    }

    // Without a store, a server still refuses what it spent itself.
    let alone = suspend_http(&dir, "alone", true, &[]);
    let peer = Peer::modern(&alone.url, json!({}));
    let (key, state) = asked(&peer.call(1, "delete_repo", repo(), json!({})).await);
    let ran = peer
        .call(2, "delete_repo", repo(), accepted(&key, &state))
        .await;
    assert_eq!(text(&ran), "deleted prod-db");
    let again = peer
        .call(3, "delete_repo", repo(), accepted(&key, &state))
        .await;
    check_refusal(&again, &mut refusal);
    assert_eq!(effects(&dir, "alone"), ["delete prod-db"]);
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn a_state_serves_only_the_principal_it_was_issued_to() {
    let dir = scratch("principal-state");
    let env = [("SUSPEND_KEY", KEY), ("SUSPEND_PRINCIPAL_HEADER", "x-user")];
    let served = suspend_http(&dir, "s", true, &env);
    let alice = Peer::modern(&served.url, json!({})).with_header("x-user", "alice");
    let (key, state) = asked(&alice.call(1, "delete_repo", repo(), json!({})).await);

    let mut refusal = None;
    let bob = Peer::modern(&served.url, json!({})).with_header("x-user", "bob");
    let nobody = Peer::modern(&served.url, json!({}));
    for (peer, id) in [(&bob, 2), (&nobody, 3)] {
        let stolen = peer
            .call(id, "delete_repo", repo(), accepted(&key, &state))
            .await;
        check_refusal(&stolen, &mut refusal);
    }
    // A forged state gets the very same answer. One character of its sealed part changed
    // for another (always a different one, so the forgery never equals the original). Not
    // the last: base64url's last character may carry unused bits, and a change there can
    // make text that does not decode at all (refused as malformed, not as altered).
    let at = state.len() - 8;
    let was = state.as_bytes()[at];
    let now = if was == b'A' { 'B' } else { 'A' };
    let forged = format!("{}{now}{}", &state[..at], &state[at + 1..]);
    let altered = alice
        .call(4, "delete_repo", repo(), accepted(&key, &forged))
        .await;
    check_refusal(&altered, &mut refusal);
    assert!(effects(&dir, "s").is_empty());
    let log = events(&dir, "s");
    assert!(logged(&log, "other_caller"), "{log}");
    assert!(logged(&log, "altered"), "{log}");

    let ran = alice
        .call(5, "delete_repo", repo(), accepted(&key, &state))
        .await;
    assert_eq!(text(&ran), "deleted prod-db");
    assert_eq!(effects(&dir, "s"), ["delete prod-db"]);
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn a_sub_agents_state_serves_only_the_principal_it_was_issued_to() {
    // The state carries the halted runs of the agents below the tool: a foreign holder
    // must not resume them (and read what they say).
    let dir = scratch("agent-state");
    let (one, two) = (dir.join("one.log"), dir.join("two.log"));
    let start = |log: &Path| {
        let env = [
            ("AGENTS_KEY", KEY),
            ("AGENTS_LOG", log.to_str().unwrap()),
            ("AGENTS_PRINCIPAL_HEADER", "x-user"),
        ];
        Listening::start_with("agents_server", &["--http", "127.0.0.1:0"], &env)
    };
    let (first, replica) = (start(&one), start(&two));
    let alice = Peer::modern(&first.url, json!({})).with_header("x-user", "alice");
    let ship = json!({"prompt": "ship v2"});
    let (key, state) = asked(&alice.call(1, "platform", ship.clone(), json!({})).await);
    let mut refusal = None;
    for user in [Some("bob"), None] {
        let mut peer = Peer::modern(&replica.url, json!({}));
        if let Some(user) = user {
            peer = peer.with_header("x-user", user);
        }
        let stolen = peer
            .call(2, "platform", ship.clone(), accepted(&key, &state))
            .await;
        check_refusal(&stolen, &mut refusal);
    }
    let log = std::fs::read_to_string(&two).unwrap_or_default();
    assert!(!log.contains("deploy"), "{log}");
    // Alice, on the replica, resumes the agents: the approved deploy runs there.
    let alice_there = Peer::modern(&replica.url, json!({})).with_header("x-user", "alice");
    let resumed = alice_there
        .call(3, "platform", ship, accepted(&key, &state))
        .await;
    assert!(!text(&resumed).is_empty(), "{resumed}");
    let log = std::fs::read_to_string(&two).unwrap_or_default();
    assert!(log.contains("deploy"), "{log}");
    let _ = std::fs::remove_dir_all(dir);
}

/// The id the approval gate gives a call: the SHA-256 of the tool, its canonical
/// arguments and the call id (the JSON-RPC id) — which any client can compute.
fn approval_id(tool: &str, canonical_args: &str, call_id: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(b"toolnexus/approval/v1\0");
    for part in [tool, canonical_args] {
        hasher.update(part.as_bytes());
        hasher.update([0]);
    }
    hasher.update(call_id.as_bytes());
    let digest = hasher.finalize();
    let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
    format!("approve-{hex}")
}

/// `_meta` carrying a forged approval of `delete_repo {"name": "prod-db"}` as call `id`.
fn forged(id: i64) -> Value {
    let approval = approval_id("delete_repo", r#"{"name":"prod-db"}"#, &id.to_string());
    json!({"_meta": {"toolnexus/answer": {"id": approval, "ok": true}}})
}

/// The answer was not taken: the call asks for the approval instead.
fn asks_first(response: &Value) {
    let answer = result(response);
    assert_eq!(answer["isError"], true, "{response}");
    assert_eq!(
        answer["_meta"]["toolnexus/pending"]["kind"], "approval",
        "{response}"
    );
}

#[tokio::test]
async fn a_forged_handshake_era_approval_runs_nothing() {
    let dir = scratch("forged");
    let stateful = suspend_http(&dir, "stateful", false, &[]);
    let session = Peer::session(&stateful.url, json!({})).await;
    asks_first(&session.call(7, "delete_repo", repo(), forged(7)).await);
    let stateless = suspend_http(&dir, "stateless", true, &[]);
    let sessionless = Peer::sessionless(&stateless.url);
    asks_first(&sessionless.call(8, "delete_repo", repo(), forged(8)).await);
    let (log, _) = files(&dir, "stdio");
    let env = [("SUSPEND_LOG", log.to_str().unwrap())];
    let mut stdio = StdioPeer::start("suspend_server", &env, json!({})).await;
    asks_first(&stdio.call(9, "delete_repo", repo(), forged(9)).await);
    for server in ["stateful", "stateless", "stdio"] {
        assert!(
            effects(&dir, server).is_empty(),
            "{server}: {:?}",
            effects(&dir, server)
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn a_handshake_era_answer_counts_once_and_only_on_its_own_session() {
    let dir = scratch("legacy-answer");
    let served = suspend_http(&dir, "s", false, &[]);
    let mine = Peer::session(&served.url, json!({})).await;
    let other = Peer::session(&served.url, json!({})).await;
    let web = json!({"service": "web"});
    let asked = mine.call(1, "deploy", web.clone(), json!({})).await;
    let request = &result(&asked)["_meta"]["toolnexus/pending"];
    let answer =
        json!({"_meta": {"toolnexus/answer": {"id": request["id"], "ok": true, "data": "eu"}}});
    let which = |response: &Value| text(response).to_owned();

    // Another session holding the answer: the tool asks again, nothing deployed.
    let elsewhere = other.call(1, "deploy", web.clone(), answer.clone()).await;
    assert_eq!(which(&elsewhere), "Which environment for web?");
    // An answer to no request at all: the same.
    let invented =
        json!({"_meta": {"toolnexus/answer": {"id": "req-invented", "ok": true, "data": "eu"}}});
    assert_eq!(
        which(&mine.call(2, "deploy", web.clone(), invented).await),
        "Which environment for web?"
    );
    // Its own session: the answer reaches the tool, once.
    assert_eq!(
        which(&mine.call(3, "deploy", web.clone(), answer.clone()).await),
        "deployed web to eu"
    );
    assert_eq!(
        which(&mine.call(4, "deploy", web, answer).await),
        "Which environment for web?"
    );
    assert_eq!(effects(&dir, "s"), ["deploy web eu"]);
    let _ = std::fs::remove_dir_all(dir);
}
