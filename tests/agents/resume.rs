//! Resumes a halted `lead` run (tests/agents/stack.rs) in a process of its own:
//! `agents_resume <run.json> <effects-file> accept|decline` reads the `RunResult`, answers
//! its pending request and prints the finished `RunResult` as JSON.

#[path = "stack.rs"]
mod stack;

use toolnexus::RunResult;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [run, effects, verdict] = args.as_slice() else {
        eprintln!("usage: agents_resume <run.json> <effects-file> accept|decline");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(run).expect("read the run");
    let run: RunResult = serde_json::from_str(&text).expect("a RunResult");
    let request = run.pending.clone().expect("a pending run");
    let answer = match verdict.as_str() {
        "accept" => request.answer(true),
        _ => request.decline("not now"),
    };
    let (client, toolkit) = stack::lead(&stack::Effects::to_file(effects.into()));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let done = rt
        .block_on(client.resume(&toolkit, run.transcript, &request, answer))
        .expect("the run resumes");
    println!("{}", serde_json::to_string(&done).expect("serializes"));
}
