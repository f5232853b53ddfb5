//! The interpreter: one QuickJS runtime on a thread of its own per script, under the
//! script's [`Limits`], talking to the host (`host.rs`) over two channels.
//!
//! The script runs until every promise it can settle is settled; the tool calls it made
//! meanwhile go to the host as one batch (calls the script gathers with `Promise.all`
//! arrive together), and their results come back as one reply. The runtime has no module
//! loader, no `std` or `os` module, no timers and no I/O: the only ways out are the
//! `tools` object and `console.log` / `print`.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc as std_mpsc;
use std::time::{Duration, Instant};

use rquickjs::context::EvalOptions;
use rquickjs::promise::PromiseState;
use rquickjs::{Context, Ctx, Function, Promise, Runtime};
use tokio::sync::mpsc;

use crate::code::limits::{Limits, OPS_PER_CHECK};

/// The file name scripts are compiled under; lines are found by it in stack traces.
pub(crate) const SCRIPT_FILE: &str = "script.js";

/// One tool call the script made.
#[derive(Debug, Clone)]
pub(crate) struct Queued {
    /// Its number in the script's calls (0 first), in the order the script made them.
    pub(crate) seq: usize,
    pub(crate) name: String,
    /// The arguments, as JSON text.
    pub(crate) args: String,
    /// The script's line that made the call (0 when unknown).
    pub(crate) line: u32,
}

/// What a call gives back to the script.
#[derive(Debug, Clone)]
pub(crate) enum Reply {
    /// The call's value, as JSON text.
    Value(String),
    /// The call failed: the script's promise rejects with this message.
    Error(String),
}

/// What the interpreter tells the host.
#[derive(Debug)]
pub(crate) enum HostEvent {
    /// Calls to run; answer with one reply per call, in any order.
    Calls(Vec<Queued>),
    /// The script ended.
    Done(Finished),
}

/// A script's end: its printed output and its value or its failure.
#[derive(Debug)]
pub(crate) struct Finished {
    pub(crate) output: String,
    pub(crate) result: Result<Option<String>, Failure>,
}

/// Why a script did not finish.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Failure {
    /// The script's line, when known.
    pub(crate) line: Option<u32>,
    pub(crate) message: String,
}

/// The host's side of a running script. Dropping it stops the script.
pub(crate) struct Running {
    pub(crate) events: mpsc::UnboundedReceiver<HostEvent>,
    replies: std_mpsc::Sender<Vec<(usize, Reply)>>,
    abort: Arc<AtomicBool>,
}

impl Running {
    /// Hands the results of the last batch to the script.
    pub(crate) fn reply(&self, replies: Vec<(usize, Reply)>) -> bool {
        self.replies.send(replies).is_ok()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.abort.store(true, Ordering::Relaxed);
    }
}

/// Starts `script` on a thread of its own; `tools` are the names the `tools` object
/// offers.
pub(crate) fn start(
    script: String,
    tools: Vec<String>,
    limits: Limits,
) -> std::io::Result<Running> {
    let (event_tx, events) = mpsc::unbounded_channel();
    let (replies, reply_rx) = std_mpsc::channel();
    let abort = Arc::new(AtomicBool::new(false));
    let stop = Arc::clone(&abort);
    // QuickJS checks its stack against the limit the script gets; the thread has room
    // beyond it for the host's own frames.
    let stack = limits.stack_limit().saturating_add(4 << 20);
    std::thread::Builder::new()
        .name("toolnexus-code".into())
        .stack_size(stack)
        .spawn(move || {
            let finished = run(&script, &tools, &limits, &stop, &event_tx, &reply_rx);
            let _ = event_tx.send(HostEvent::Done(finished));
        })?;
    Ok(Running {
        events,
        replies,
        abort,
    })
}

/// Which limit stopped the script, if one did.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Hit {
    Time,
    Steps,
    Calls,
    Stopped,
}

/// The clock and step count the interrupt handler keeps.
struct Meter {
    since: Cell<Option<Instant>>,
    used: Cell<Duration>,
    checks: Cell<u64>,
    hit: Cell<Option<Hit>>,
}

impl Meter {
    fn pause(&self) {
        if let Some(since) = self.since.take() {
            self.used.set(self.used.get() + since.elapsed());
        }
    }

    fn resume(&self) {
        self.since.set(Some(Instant::now()));
    }

    fn elapsed(&self) -> Duration {
        self.used.get() + self.since.get().map_or(Duration::ZERO, |s| s.elapsed())
    }
}

/// The code the runtime is given before the script: it builds `tools`, `console` and
/// `print` from the host's two functions and returns the helpers the host drives the
/// script with. Nothing of it stays reachable from the script but those globals.
const PRELUDE: &str = r#"(function (hostCall, hostOut, names) {
  "use strict";
  const pending = new Map();
  const lineOf = (stack) => {
    const m = /script\.js:(\d+)/.exec(String(stack || ""));
    return m ? Number(m[1]) : 0;
  };
  const show = (v) => {
    if (typeof v === "string") return v;
    if (v instanceof Error) return String(v);
    try { const s = JSON.stringify(v); return s === undefined ? String(v) : s; }
    catch (e) { return String(v); }
  };
  const target = Object.create(null);
  for (const name of names) {
    target[name] = function (args) {
      const line = lineOf(new Error().stack);
      return new Promise((resolve, reject) => {
        const text = args === undefined ? "{}" : JSON.stringify(args);
        const id = hostCall(name, text === undefined ? "null" : text, line);
        pending.set(id, [resolve, reject, line]);
      });
    };
  }
  const list = names.join(", ");
  globalThis.tools = new Proxy(target, {
    get(t, key) {
      if (typeof key !== "string" || key in t || key === "then") return t[key];
      const line = lineOf(new Error().stack);
      const e = new TypeError("there is no tool `" + key + "`; the tools are: " + list);
      e.toolLine = line;
      throw e;
    },
    set() { return false; },
  });
  const log = (...a) => hostOut(a.map(show).join(" "));
  globalThis.console = { log, info: log, warn: log, error: log, debug: log };
  globalThis.print = log;
  const settle = (id, ok, text) => {
    const p = pending.get(id);
    pending.delete(id);
    if (!p) return;
    if (ok) { p[0](JSON.parse(text)); return; }
    const e = new Error(text);
    e.toolLine = p[2];
    p[1](e);
  };
  const describe = (e) => {
    let line = 0, message;
    if (e instanceof Error) {
      line = e.toolLine || lineOf(e.stack);
      message = String(e);
    } else {
      message = "uncaught " + show(e);
    }
    return JSON.stringify({ line, message });
  };
  const value = (v) => {
    if (v === undefined) return undefined;
    const s = JSON.stringify(v);
    return s;
  };
  return { settle, describe, value };
})"#;

fn run(
    script: &str,
    tools: &[String],
    limits: &Limits,
    abort: &Arc<AtomicBool>,
    events: &mpsc::UnboundedSender<HostEvent>,
    replies: &std_mpsc::Receiver<Vec<(usize, Reply)>>,
) -> Finished {
    let output = Rc::new(RefCell::new(Output::new(limits.output_limit())));
    let failed = |message: String| Finished {
        output: String::new(),
        result: Err(Failure {
            line: None,
            message,
        }),
    };
    let Ok(runtime) = Runtime::new() else {
        return failed("the interpreter could not start".into());
    };
    runtime.set_memory_limit(limits.memory_limit());
    runtime.set_max_stack_size(limits.stack_limit());
    let meter = Rc::new(Meter {
        since: Cell::new(None),
        used: Cell::new(Duration::ZERO),
        checks: Cell::new(0),
        hit: Cell::new(None),
    });
    {
        let meter = Rc::clone(&meter);
        let abort = Arc::clone(abort);
        let time = limits.time_limit();
        let checks = limits.step_limit().div_ceil(OPS_PER_CHECK);
        runtime.set_interrupt_handler(Some(Box::new(move || {
            if meter.hit.get().is_some() {
                return true;
            }
            meter.checks.set(meter.checks.get() + 1);
            let hit = if abort.load(Ordering::Relaxed) {
                Some(Hit::Stopped)
            } else if meter.checks.get() > checks {
                Some(Hit::Steps)
            } else if meter.elapsed() > time {
                Some(Hit::Time)
            } else {
                None
            };
            meter.hit.set(hit);
            hit.is_some()
        })));
    }
    let Ok(context) = Context::full(&runtime) else {
        return failed("the interpreter could not start".into());
    };
    meter.resume();
    let result = context.with(|ctx| {
        let session = Script {
            ctx: &ctx,
            limits,
            meter: &meter,
            output: &output,
            events,
            replies,
        };
        session.drive(script, tools)
    });
    meter.pause();
    let result = match (result, meter.hit.get()) {
        (Err(failure), Some(hit)) => Err(Failure {
            line: failure.line,
            message: limit_message(hit, limits),
        }),
        (result, _) => result,
    };
    let output = output.borrow().text();
    Finished { output, result }
}

fn limit_message(hit: Hit, limits: &Limits) -> String {
    match hit {
        Hit::Time => format!(
            "the script ran past its time limit ({} ms of interpreter time) and was stopped",
            limits.time_limit().as_millis()
        ),
        Hit::Steps => format!(
            "the script ran past its step limit ({} operations) and was stopped",
            limits.step_limit()
        ),
        Hit::Calls => format!(
            "the script made more than {} tool calls (its limit) and was stopped",
            limits.call_limit()
        ),
        Hit::Stopped => "the script was stopped by its host".to_owned(),
    }
}

/// The printed output, cut at its limit.
struct Output {
    text: String,
    limit: usize,
    cut: bool,
}

impl Output {
    fn new(limit: usize) -> Self {
        Output {
            text: String::new(),
            limit,
            cut: false,
        }
    }

    fn push(&mut self, line: &str) {
        if self.cut {
            return;
        }
        let room = self.limit.saturating_sub(self.text.len());
        if line.len() < room {
            self.text.push_str(line);
            self.text.push('\n');
        } else {
            let mut end = room;
            while !line.is_char_boundary(end) {
                end -= 1;
            }
            self.text.push_str(&line[..end]);
            self.cut = true;
        }
    }

    fn text(&self) -> String {
        if self.cut {
            format!(
                "{}\n[output cut at {} bytes]\n",
                self.text.trim_end(),
                self.limit
            )
        } else {
            self.text.clone()
        }
    }
}

struct Script<'a, 'js> {
    ctx: &'a Ctx<'js>,
    limits: &'a Limits,
    meter: &'a Rc<Meter>,
    output: &'a Rc<RefCell<Output>>,
    events: &'a mpsc::UnboundedSender<HostEvent>,
    replies: &'a std_mpsc::Receiver<Vec<(usize, Reply)>>,
}

type Helpers<'js> = (Function<'js>, Function<'js>, Function<'js>);

impl<'js> Script<'_, 'js> {
    fn drive(&self, script: &str, tools: &[String]) -> Result<Option<String>, Failure> {
        let ctx = self.ctx;
        let queued: Rc<RefCell<Vec<Queued>>> = Rc::default();
        let (settle, describe, value) = self.prelude(tools, &queued)?;
        let mut options = EvalOptions::default();
        options.strict = false;
        options.filename = Some(SCRIPT_FILE.to_owned());
        // On the script's first line, so that its lines keep their numbers.
        let wrapped = format!("(async () => {{{script}\n}})()");
        let promise: Promise<'js> = match ctx.eval_with_options(wrapped, options) {
            Ok(promise) => promise,
            Err(_) => return Err(self.caught(&describe)),
        };
        loop {
            while ctx.execute_pending_job() {
                if self.meter.hit.get().is_some() {
                    return Err(self.caught(&describe));
                }
            }
            if self.meter.hit.get().is_some() {
                return Err(self.caught(&describe));
            }
            let batch = std::mem::take(&mut *queued.borrow_mut());
            if !batch.is_empty() {
                // Calls still run when the script did not wait for them (or has ended).
                self.exchange(batch, &settle, &describe)?;
                continue;
            }
            match promise.state() {
                PromiseState::Resolved => {
                    let result: rquickjs::Value<'js> = promise
                        .result()
                        .and_then(Result::ok)
                        .unwrap_or_else(|| rquickjs::Value::new_undefined(ctx.clone()));
                    return match value.call::<_, Option<String>>((result,)) {
                        Ok(text) => Ok(text),
                        Err(_) => Err(self.caught(&describe)),
                    };
                }
                PromiseState::Rejected => {
                    let reason = match promise.result::<rquickjs::Value<'js>>() {
                        Some(Err(_)) => ctx.catch(),
                        Some(Ok(value)) => value,
                        None => rquickjs::Value::new_undefined(ctx.clone()),
                    };
                    return Err(self.described(&describe, reason));
                }
                PromiseState::Pending => {}
            }
            return Err(Failure {
                line: None,
                message: "the script waits on a promise that nothing settles (only the \
                          `tools` calls are asynchronous here)"
                    .into(),
            });
        }
    }

    /// Hands a batch of calls to the host and their results to the script.
    fn exchange(
        &self,
        batch: Vec<Queued>,
        settle: &Function<'js>,
        describe: &Function<'js>,
    ) -> Result<(), Failure> {
        self.meter.pause();
        let sent = self.events.send(HostEvent::Calls(batch)).is_ok();
        let replies = if sent { self.replies.recv().ok() } else { None };
        self.meter.resume();
        let Some(replies) = replies else {
            self.meter.hit.set(Some(Hit::Stopped));
            return Err(Failure {
                line: None,
                message: limit_message(Hit::Stopped, self.limits),
            });
        };
        for (seq, reply) in replies {
            let (ok, text) = match reply {
                Reply::Value(text) => (true, text),
                Reply::Error(text) => (false, text),
            };
            if settle.call::<_, ()>((seq, ok, text)).is_err() {
                return Err(self.caught(describe));
            }
        }
        Ok(())
    }

    /// Runs the prelude with the host's functions.
    fn prelude(
        &self,
        tools: &[String],
        queued: &Rc<RefCell<Vec<Queued>>>,
    ) -> Result<Helpers<'js>, Failure> {
        let ctx = self.ctx;
        let start = |_| Failure {
            line: None,
            message: "the interpreter could not start".into(),
        };
        let calls = Rc::new(Cell::new(0usize));
        let limit = self.limits.call_limit();
        let queue = Rc::clone(queued);
        let meter = Rc::clone(self.meter);
        let host_call = Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, name: String, args: String, line: u32| {
                let seq = calls.get();
                if seq >= limit {
                    // A hard stop, like the other limits: the interrupt handler ends the script.
                    meter.hit.set(Some(Hit::Calls));
                    return Err(rquickjs::Exception::throw_range(
                        &ctx,
                        "too many tool calls",
                    ));
                }
                calls.set(seq + 1);
                queue.borrow_mut().push(Queued {
                    seq,
                    name,
                    args,
                    line,
                });
                Ok(seq)
            },
        )
        .map_err(start)?;
        let output = Rc::clone(self.output);
        let host_out = Function::new(ctx.clone(), move |line: String| {
            output.borrow_mut().push(&line);
        })
        .map_err(start)?;
        let mut options = EvalOptions::default();
        options.filename = Some("prelude.js".to_owned());
        let prelude: Function<'js> = ctx.eval_with_options(PRELUDE, options).map_err(start)?;
        let names: Vec<String> = tools.to_vec();
        let helpers: rquickjs::Object<'js> =
            prelude.call((host_call, host_out, names)).map_err(start)?;
        Ok((
            helpers.get("settle").map_err(start)?,
            helpers.get("describe").map_err(start)?,
            helpers.get("value").map_err(start)?,
        ))
    }

    /// The failure of the exception the context holds.
    fn caught(&self, describe: &Function<'js>) -> Failure {
        let reason = self.ctx.catch();
        self.described(describe, reason)
    }

    fn described(&self, describe: &Function<'js>, reason: rquickjs::Value<'js>) -> Failure {
        if self.meter.hit.get().is_some() {
            // The interrupt's own exception: the limit says what happened. (Its stack
            // points at the script's entry, not where it was running: no line.)
            return Failure {
                line: None,
                message: String::new(),
            };
        }
        let text: Option<String> = describe.call((reason,)).ok();
        let parsed = text.and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok());
        match parsed {
            Some(described) => Failure {
                line: described["line"]
                    .as_u64()
                    .filter(|line| *line > 0)
                    .and_then(|line| u32::try_from(line).ok()),
                message: described["message"].as_str().unwrap_or("error").to_owned(),
            },
            None => {
                // Describing failed too: the heap is out of room.
                let _ = self.ctx.catch();
                Failure {
                    line: None,
                    message: format!(
                        "the script ran out of memory (its limit is {} bytes) and was stopped",
                        self.limits.memory_limit()
                    ),
                }
            }
        }
    }
}
