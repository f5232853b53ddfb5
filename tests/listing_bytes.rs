//! Listing bytes per tool for the quickstart's tools, beside Pydantic AI's and the OpenAI
//! Agents SDK's schemas for the same Python signatures (`tests/listing/peers.py`), each in
//! the Chat Completions tool shape, as compact JSON. A benchmark, printed for
//! BENCHMARKS.md ("Many tools"); it runs when `TOOLNEXUS_LISTING_PYTHON` names a Python
//! with `pydantic-ai-slim` and `openai-agents` installed, and otherwise checks our side only.

#[path = "../examples/shared/tools.rs"]
#[allow(dead_code)]
mod tools;

use std::process::Command;

use serde_json::Value;
use toolnexus::Toolkit;

#[test]
fn quickstart_listing_bytes_beside_pydantic_ai_and_openai_agents() {
    let toolkit: Toolkit =
        toolnexus::tools![tools::add, tools::divide, tools::deploy, tools::screenshot]
            .into_iter()
            .collect();
    let listing = toolkit.to_openai();
    let ours: Vec<(String, usize)> = listing
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| {
            let name = entry["function"]["name"].as_str().unwrap().to_owned();
            (name, entry.to_string().len())
        })
        .collect();
    // `add` no longer lists ±9223372036854775807.
    assert!(
        !listing.to_string().contains("922337"),
        "{}",
        listing.to_string()
    );
    let Ok(python) = std::env::var("TOOLNEXUS_LISTING_PYTHON") else {
        println!("ours: {ours:?} (set TOOLNEXUS_LISTING_PYTHON to compare)");
        return;
    };
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/listing/peers.py");
    let output = Command::new(python)
        .arg(script)
        .output()
        .expect("python runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let peers: Value = serde_json::from_slice(&output.stdout).unwrap();
    println!("| tool | toolnexus | Pydantic AI | OpenAI Agents SDK |\n|---|---|---|---|");
    let mut totals = [0; 3];
    for (name, bytes) in &ours {
        let peer = |sdk: &str| peers[sdk][name].to_string().len();
        let row = [*bytes, peer("pydantic_ai"), peer("openai_agents")];
        for (total, b) in totals.iter_mut().zip(row) {
            *total += b;
        }
        println!("| `{name}` | {} | {} | {} |", row[0], row[1], row[2]);
    }
    println!("| total | {} | {} | {} |", totals[0], totals[1], totals[2]);
}
