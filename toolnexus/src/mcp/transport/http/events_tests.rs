//! The event store's bounds, expiry, ownership and one-replay-per-stream rule.

use futures_util::StreamExt;

use super::*;

fn response(id: i64) -> ServerSseMessage {
    let message = serde_json::json!({"jsonrpc": "2.0", "id": id, "result": {}});
    ServerSseMessage::from_message(serde_json::from_value(message).unwrap())
}

/// Streams `s0`, `s1`, … each carrying one answer; their event ids.
async fn answer_streams(store: &MemoryEventStore, count: i64) -> Vec<String> {
    let mut ids = Vec::new();
    for n in 0..count {
        let id = store.store_event(&format!("s{n}"), &response(n)).await;
        ids.push(id.unwrap());
    }
    ids
}

#[tokio::test]
async fn a_replay_waits_for_the_response_then_ends() {
    let store = MemoryEventStore::new(Duration::from_secs(60), 1 << 20, 1 << 20);
    let priming = ServerSseMessage::priming("ignored", Duration::from_secs(3));
    let first = store.store_event("s", &priming).await.unwrap();
    let mut replay = store.replay_events_after(&first).await.unwrap();
    // The response comes after the replay started: it is delivered, then the end.
    let id = store.store_event("s", &response(7)).await.unwrap();
    let event = replay.next().await.expect("the response");
    assert_eq!(event.event_id.as_deref(), Some(id.as_str()));
    assert!(replay.next().await.is_none());
    // Unknown ids are errors, not empty streams.
    assert!(store.replay_events_after("99-0").await.is_err());
    assert!(
        store
            .replay_events_after(&format!("{:032x}-0", 99))
            .await
            .is_err()
    );
    assert!(store.replay_events_after("not an id").await.is_err());
}

#[tokio::test]
async fn the_byte_budget_drops_the_oldest_streams() {
    let store = MemoryEventStore::new(Duration::from_secs(60), 64 * 1024, 64 * 1024);
    let ids = answer_streams(&store, 1000).await;
    {
        let state = store.0.lock();
        assert!(state.bytes <= 64 * 1024, "{} bytes kept", state.bytes);
        assert!(state.streams.len() < 1000 && !state.streams.is_empty());
    }
    assert!(
        store.replay_events_after(&ids[0]).await.is_err(),
        "the oldest is gone"
    );
    let newest = store.replay_events_after(&ids[999]).await.unwrap();
    assert_eq!(
        newest.collect::<Vec<_>>().await.len(),
        0,
        "nothing after the last"
    );
}

#[tokio::test(start_paused = true)]
async fn answered_streams_expire_first_and_writes_renew_a_stream() {
    let store = MemoryEventStore::new(Duration::from_secs(60), 1 << 20, 1 << 20);
    let priming = ServerSseMessage::priming("ignored", Duration::from_secs(3));
    let answered = store.store_event("answered", &response(1)).await.unwrap();
    let open = store.store_event("open", &priming).await.unwrap();
    tokio::time::advance(DONE_TTL + Duration::from_secs(1)).await;
    store.store_event("later", &priming).await.unwrap();
    assert!(store.replay_events_after(&answered).await.is_err());
    assert!(store.replay_events_after(&open).await.is_ok());
    // The open stream is written again, so it is now younger than `later`.
    store.store_event("open", &priming).await.unwrap();
    let state = store.0.lock();
    let order: Vec<&str> = state
        .open
        .values()
        .map(|key| state.streams[key].name.as_ref())
        .collect();
    assert_eq!(order, ["later", "open"]);
}

#[tokio::test]
async fn answered_streams_go_first_and_keep_to_their_own_budget() {
    let store = MemoryEventStore::new(Duration::from_secs(60), 64 * 1024, 8 * 1024);
    let priming = ServerSseMessage::priming("ignored", Duration::from_secs(3));
    let running = store.store_event("running", &priming).await.unwrap();
    let answers = answer_streams(&store, 200).await;
    {
        let state = store.0.lock();
        assert!(state.answered_bytes <= 8 * 1024, "{}", state.answered_bytes);
        let kept: usize = state.streams.values().map(|log| log.bytes).sum();
        assert_eq!(kept, state.bytes, "the running total is the sum");
    }
    assert!(store.replay_events_after(&answers[0]).await.is_err());
    assert!(store.replay_events_after(&answers[199]).await.is_ok());
    // The running call, older than every answer, is still resumable; its answer moves
    // it to the answered streams, where it is the newest.
    assert!(store.replay_events_after(&running).await.is_ok());
    store.store_event("running", &response(7)).await.unwrap();
    let state = store.0.lock();
    assert!(state.open.is_empty());
    let newest = state.answered.values().next_back().unwrap();
    assert_eq!(state.streams[newest].name.as_ref(), "running");
}

#[tokio::test]
async fn stream_keys_are_random_and_128_bits() {
    let store = MemoryEventStore::new(Duration::from_secs(60), 1 << 20, 1 << 20);
    let ids = answer_streams(&store, 64).await;
    let keys: std::collections::HashSet<&str> = ids
        .iter()
        .map(|id| stream_of(id).expect("a stream part"))
        .collect();
    assert_eq!(keys.len(), 64, "every stream has its own key");
    for id in &ids {
        let (key, index) = parse_id(id).unwrap();
        assert_eq!(index, 0);
        // Not a counter: no key is a small number or next to another.
        assert!(key > u64::MAX as u128, "{id}");
        assert!(
            !keys.contains(format!("{:032x}", key.wrapping_add(1)).as_str()),
            "{id}"
        );
    }
}

#[tokio::test]
async fn a_claimed_stream_is_replayed_only_to_its_session() {
    let store = MemoryEventStore::new(Duration::from_secs(60), 1 << 20, 1 << 20);
    let priming = ServerSseMessage::priming("ignored", Duration::from_secs(3));
    let first = store.store_event("a", &priming).await.unwrap();
    store.store_event("a", &response(1)).await.unwrap();
    let session: Arc<str> = Arc::from("session-a");
    store.claim(&first, &session);
    // A second claim (another session) changes nothing.
    store.claim(&first, &Arc::from("session-b"));

    let unknown = store
        .replay(&format!("{:032x}-0", 5), Some("session-b"))
        .err()
        .unwrap()
        .to_string();
    for (who, session) in [("no session", None), ("another session", Some("session-b"))] {
        let refused = store.replay(&first, session).err();
        let refused = refused.unwrap_or_else(|| panic!("{who}: replayed"));
        assert_eq!(
            refused.to_string(),
            unknown,
            "{who}: told apart from unknown"
        );
    }
    let mine = store.replay(&first, Some("session-a")).unwrap();
    assert_eq!(mine.collect::<Vec<_>>().await.len(), 1, "the response");

    // A session-less stream is no session's.
    let open = store.store_event("b", &priming).await.unwrap();
    assert!(store.replay(&open, Some("session-a")).is_err());
    assert!(store.replay(&open, None).is_ok());
}

#[tokio::test]
async fn a_newer_replay_of_a_stream_ends_the_older_one() {
    let store = MemoryEventStore::new(Duration::from_secs(60), 1 << 20, 1 << 20);
    let priming = ServerSseMessage::priming("ignored", Duration::from_secs(3));
    let first = store.store_event("s", &priming).await.unwrap();
    let mut older = store.replay(&first, None).unwrap();
    let mut newer = store.replay(&first, None).unwrap();
    let ended = tokio::time::timeout(Duration::from_secs(10), older.next()).await;
    assert!(matches!(ended, Ok(None)), "the older replay ended");
    let id = store.store_event("s", &response(7)).await.unwrap();
    let event = newer.next().await.expect("the newer one goes on");
    assert_eq!(event.event_id.as_deref(), Some(id.as_str()));
}

#[tokio::test]
async fn a_replay_ends_when_its_client_goes_away() {
    let store = MemoryEventStore::new(Duration::from_secs(3600), 1 << 20, 1 << 20);
    let priming = ServerSseMessage::priming("ignored", Duration::from_secs(3));
    let first = store.store_event("s", &priming).await.unwrap();
    let replay = store.replay(&first, None).unwrap();
    let changed = {
        let state = store.0.lock();
        let key = state.names["s"];
        state.streams[&key].changed.clone().unwrap()
    };
    assert_eq!(changed.receiver_count(), 1, "the replay task waits");
    drop(replay);
    for _ in 0..100 {
        if changed.receiver_count() == 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the replay task outlived its client");
}
