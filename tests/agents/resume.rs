//! Resumes a halted `lead` run (tests/agents/stack.rs) in a process of its own:
//! `agents_resume <run.json> <effects-file> accept|decline` reads the `RunResult`, answers
//! its pending request and prints the finished `RunResult` as JSON;
//! `agents_resume --store <db> <effects-file> accept|decline` answers the request waiting
//! in that SQLite run store instead.

#[path = "stack.rs"]
mod stack;

use toolnexus::store::RunStore;
use toolnexus::{Request, RunResult};

fn verdict(request: &Request, verdict: &str) -> toolnexus::Answer {
    match verdict {
        "accept" => request.answer(true),
        _ => request.decline("not now"),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let done = match args.as_slice() {
        [flag, db, effects, answer] if flag == "--store" => {
            let (client, toolkit) = stack::lead(&stack::Effects::to_file(effects.into()));
            rt.block_on(async {
                let store = RunStore::sqlite(db).await.expect("the store opens");
                let waiting = store.pending().await.expect("the store lists");
                let [waiting] = waiting.as_slice() else {
                    panic!("one request waits, not {waiting:?}");
                };
                let answer = verdict(&waiting.request, answer);
                client
                    .store(store)
                    .answer(answer, &toolkit)
                    .await
                    .expect("the run resumes from the store")
            })
        }
        [run, effects, answer] => {
            let text = std::fs::read_to_string(run).expect("read the run");
            let run: RunResult = serde_json::from_str(&text).expect("a RunResult");
            let request = run.pending.clone().expect("a pending run");
            let answer = verdict(&request, answer);
            let (client, toolkit) = stack::lead(&stack::Effects::to_file(effects.into()));
            rt.block_on(client.resume(run.messages, answer, &toolkit))
                .expect("the run resumes")
        }
        _ => {
            eprintln!(
                "usage: agents_resume <run.json> <effects-file> accept|decline\n       agents_resume --store <db> <effects-file> accept|decline"
            );
            std::process::exit(2);
        }
    };
    println!("{}", serde_json::to_string(&done).expect("serializes"));
}
