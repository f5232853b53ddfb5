//! Dispatch and listing cost, each beside its floor and beside rmcp, in the same benchmark
//! group. See `BENCHMARKS.md` for the command, the ratios and what they mean.
//!
//! ```text
//! cargo bench --bench dispatch -- --warm-up-time 1 --measurement-time 3
//! python3 benches/ratios.py
//! ```
//!
//! - `dispatch/*`: `Toolkit::execute(name, args, ctx)` against the floor (the function
//!   called directly after `serde_json::from_value` of a typed argument struct, plus
//!   `to_string()` of the result) and against the same function written as an rmcp
//!   `#[tool]` method, called through rmcp's `ToolRouter::call` (`rmcp`: with its per-call
//!   context built in the measured part, as toolnexus's is; `rmcp_call_only`: without).
//! - `text_args/*`: `Toolkit::execute_json` with raw JSON text against `serde_json::from_str`
//!   into the typed struct and the same call (and rmcp, which first needs a JSON object).
//! - `listing_50/*`: the provider listings of 50 tools, first call and repeated (as a
//!   `Value` of its own from `to_openai()` and its siblings, and shared through
//!   `Toolkit::listing`), beside rmcp's `tools/list` result (`ToolRouter::list_all`)
//!   serialized with `serde_json`.
//!
//! The same 50 tools exist on both sides: `add`, `greet`, `ship` and 47 fillers.

#![allow(missing_docs)]

use std::convert::Infallible;
use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group};
use rmcp::model::CallToolResponse;
use serde::Deserialize;
use serde_json::{Value, json};
use toolnexus::schema::Listing;
use toolnexus::schema::profile::Profile;
use toolnexus::{Context, State, Tool, Toolkit, tool, toolset};

// Every tool here is synchronous, on both sides: each call finishes on its first poll.
#[path = "../tests/support/poll.rs"]
mod poll;
use poll::now;

/// Add two numbers.
#[tool]
fn add(a: i64, b: i64) -> Result<i64, Infallible> {
    Ok(a + b)
}

/// Greet someone.
#[tool]
fn greet(name: String) -> Result<String, Infallible> {
    Ok(format!("hello {name}"))
}

// Tools with state: the same work as a free function, a `#[toolset]` method and a
// `State<T>` tool (`stateful/*`).

const GREETING: &str = "hello";

/// Greet someone (free function).
#[tool]
fn welcome(name: String) -> Result<String, Infallible> {
    Ok(format!("{GREETING} {name}"))
}

struct Greeter {
    greeting: &'static str,
}

#[toolset]
impl Greeter {
    /// Greet someone (a method).
    #[tool]
    fn welcome(&self, name: String) -> Result<String, Infallible> {
        Ok(format!("{} {name}", self.greeting))
    }
}

struct Greeting(&'static str);

/// Greet someone (a shared state).
#[tool(name = "welcome")]
fn welcome_with_state(greeting: State<Greeting>, name: String) -> Result<String, Infallible> {
    Ok(format!("{} {name}", greeting.0))
}

#[derive(Deserialize, schemars::JsonSchema)]
struct Address {
    street: String,
    city: String,
    zip: Option<String>,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Speed {
    Standard,
    Express,
}

/// Ship an order.
#[tool]
fn ship(order: u64, to: Address, note: Option<String>, speed: Speed) -> Result<String, Infallible> {
    let speed = match speed {
        Speed::Standard => "standard",
        Speed::Express => "express",
    };
    Ok(format!(
        "order {order} to {}, {} {} ({speed}{})",
        to.street,
        to.city,
        to.zip.unwrap_or_default(),
        note.map(|n| format!(", {n}")).unwrap_or_default()
    ))
}

// The typed argument structs: what the floor deserializes into, and what rmcp's
// `Parameters<T>` needs (rmcp has no per-parameter form, so its users write these by hand).
#[derive(Deserialize, schemars::JsonSchema)]
struct AddArgs {
    a: i64,
    b: i64,
}
#[derive(Deserialize, schemars::JsonSchema)]
struct GreetArgs {
    name: String,
}
#[derive(Deserialize, schemars::JsonSchema)]
struct ShipArgs {
    order: u64,
    to: Address,
    note: Option<String>,
    speed: Speed,
}
#[derive(Deserialize, schemars::JsonSchema)]
struct FillerArgs {
    /// A number.
    x: i64,
}

fn ok<T>(result: Result<T, Infallible>) -> T {
    match result {
        Ok(value) => value,
        Err(never) => match never {},
    }
}

fn floor_add(args: Value) -> String {
    let a: AddArgs = serde_json::from_value(args).unwrap();
    ok(add(a.a, a.b)).to_string()
}
fn floor_greet(args: Value) -> String {
    let a: GreetArgs = serde_json::from_value(args).unwrap();
    ok(greet(a.name)).to_string()
}
fn floor_ship(args: Value) -> String {
    let a: ShipArgs = serde_json::from_value(args).unwrap();
    ok(ship(a.order, a.to, a.note, a.speed)).to_string()
}

fn add_args() -> Value {
    json!({"a": 20, "b": 22})
}
fn greet_args() -> Value {
    json!({"name": "Ada Lovelace"})
}
fn ship_args() -> Value {
    json!({"order": 42, "to": {"street": "1 Main St", "city": "Springfield", "zip": "12345"},
           "note": "leave at door", "speed": "express"})
}

/// The same tools written for rmcp: `#[tool]` methods in a `#[tool_router]` impl, each
/// calling the very function the toolnexus side wraps.
mod with_rmcp {
    use std::future::Future;

    use rmcp::handler::server::router::tool::ToolRouter;
    use rmcp::handler::server::tool::ToolCallContext;
    use rmcp::handler::server::wrapper::Parameters;
    use rmcp::model::{CallToolRequestParams, CallToolResponse, ListToolsResult, RequestId};
    use rmcp::service::{RequestContext, RunningService};
    use rmcp::{ErrorData, RoleServer, ServerHandler, tool, tool_router};
    use serde_json::{Map, Value};

    use super::{AddArgs, GreetArgs, ShipArgs, ok};

    pub(crate) struct Server;

    #[tool_router(vis = "pub(crate)")]
    impl Server {
        /// Add two numbers.
        #[tool]
        fn add(&self, Parameters(AddArgs { a, b }): Parameters<AddArgs>) -> String {
            ok(super::add(a, b)).to_string()
        }

        /// Greet someone.
        #[tool]
        fn greet(&self, Parameters(GreetArgs { name }): Parameters<GreetArgs>) -> String {
            ok(super::greet(name))
        }

        /// Ship an order.
        #[tool]
        fn ship(&self, Parameters(args): Parameters<ShipArgs>) -> String {
            ok(super::ship(args.order, args.to, args.note, args.speed))
        }
    }

    // Every handler method has a default; nothing here is ever served over a transport.
    impl ServerHandler for Server {}

    /// The 50 tools: `add`, `greet`, `ship` and the 47 fillers.
    pub(crate) fn fifty() -> ToolRouter<Server> {
        Server::tool_router() + Server::filler_router()
    }

    /// A `RequestContext` for calling tools without a transport.
    ///
    /// `ToolRouter::call` takes a `ToolCallContext`, which holds a `RequestContext`, which
    /// holds a `Peer`; rmcp makes a `Peer` only inside a running service (`Peer::new` is
    /// crate-private). So a service is started over an in-memory duplex pipe that nobody
    /// writes to, and its peer is borrowed. No tool here touches the peer: it is only
    /// carried along. Must be called inside a Tokio runtime (the service loop is spawned).
    pub(crate) fn request_context() -> (RequestContext<RoleServer>, Keep) {
        let (ours, theirs) = tokio::io::duplex(64);
        let running = rmcp::service::serve_directly(Server, ours, None);
        let context = RequestContext::new(RequestId::Number(1), running.peer().clone());
        (context, Keep(running, theirs))
    }

    /// Keeps the service behind the fake peer (and the other end of its pipe) alive.
    pub(crate) struct Keep(
        #[allow(dead_code)] RunningService<RoleServer, Server>,
        #[allow(dead_code)] tokio::io::DuplexStream,
    );

    /// One `tools/call` as rmcp's server dispatches it, minus the transport: what the
    /// `#[tool_handler]` expansion does with the request.
    pub(crate) fn call<'a>(
        router: &'a ToolRouter<Server>,
        context: ToolCallContext<'a, Server>,
    ) -> impl Future<Output = Result<CallToolResponse, ErrorData>> + 'a {
        router.call(context)
    }

    /// The context for one call.
    pub(crate) fn context<'a>(
        server: &'a Server,
        request: RequestContext<RoleServer>,
        name: &'static str,
        args: Value,
    ) -> ToolCallContext<'a, Server> {
        let Value::Object(args) = args else {
            unreachable!("arguments are objects")
        };
        let params = CallToolRequestParams::new(name).with_arguments(args);
        ToolCallContext::new(server, params, request)
    }

    /// `tools/list` as rmcp's server answers it, serialized.
    pub(crate) fn list(router: &ToolRouter<Server>) -> String {
        serde_json::to_string(&ListToolsResult::with_all_items(router.list_all())).unwrap()
    }

    pub(crate) type Object = Map<String, Value>;
}

/// 47 fillers, so that the 50 tools are `add`, `greet`, `ship` and these, written once
/// for each side.
macro_rules! fillers {
    ($($name:ident)*) => {
        mod fillers {
            use std::convert::Infallible;

            use toolnexus::tool;

            $(
                /// A filler tool.
                #[tool]
                pub(crate) fn $name(
                    /// A number.
                    x: i64,
                ) -> Result<i64, Infallible> {
                    Ok(x)
                }
            )*

            pub(crate) fn all() -> Vec<toolnexus::Tool> {
                toolnexus::tools![$($name),*]
            }
        }

        mod rmcp_fillers {
            use rmcp::handler::server::wrapper::Parameters;
            use rmcp::{tool, tool_router};

            use super::FillerArgs;
            use super::with_rmcp::Server;

            #[tool_router(router = filler_router, vis = "pub(crate)")]
            impl Server {
                $(
                    /// A filler tool.
                    #[tool]
                    fn $name(&self, Parameters(FillerArgs { x }): Parameters<FillerArgs>) -> String {
                        x.to_string()
                    }
                )*
            }
        }
    };
}

fillers!(
    filler_00 filler_01 filler_02 filler_03 filler_04 filler_05 filler_06 filler_07 filler_08
    filler_09 filler_10 filler_11 filler_12 filler_13 filler_14 filler_15 filler_16 filler_17
    filler_18 filler_19 filler_20 filler_21 filler_22 filler_23 filler_24 filler_25 filler_26
    filler_27 filler_28 filler_29 filler_30 filler_31 filler_32 filler_33 filler_34 filler_35
    filler_36 filler_37 filler_38 filler_39 filler_40 filler_41 filler_42 filler_43 filler_44
    filler_45 filler_46
);

/// The 50 tools on the toolnexus side.
fn fifty() -> Toolkit {
    let mut tools: Vec<Tool> = toolnexus::tools![add, greet, ship];
    tools.extend(fillers::all());
    tools.into_iter().collect()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn dispatch(c: &mut Criterion) {
    let small = Toolkit::new()
        .with(add::tool())
        .with(greet::tool())
        .with(ship::tool());
    let big = fifty();
    assert_eq!(big.len(), 50);
    let server = with_rmcp::Server;
    let rmcp_small = with_rmcp::Server::tool_router();
    let rmcp_big = with_rmcp::fifty();
    assert_eq!(rmcp_big.list_all().len(), 50);
    let rt = runtime();
    let _guard = rt.enter();
    let (request, _keep) = with_rmcp::request_context();

    // Both sides compute the same text.
    for (tool, args, floor) in [
        (
            "add",
            add_args as fn() -> Value,
            floor_add as fn(Value) -> String,
        ),
        ("greet", greet_args, floor_greet),
        ("ship", ship_args, floor_ship),
    ] {
        let expected = floor(args());
        assert_eq!(
            now(small.execute(tool, args(), Context::default())).output,
            expected
        );
        let response = now(with_rmcp::call(
            &rmcp_small,
            with_rmcp::context(&server, request.clone(), tool, args()),
        ))
        .unwrap();
        let CallToolResponse::Complete(result) = response else {
            panic!("rmcp's {tool} did not complete")
        };
        let text = serde_json::to_value(&result).unwrap()["content"][0]["text"].clone();
        assert_eq!(text, Value::String(expected));
    }

    let mut group = c.benchmark_group("dispatch");
    type Case = (
        &'static str,
        &'static str,
        fn() -> Value,
        fn(Value) -> String,
    );
    let cases: [Case; 3] = [
        ("a_two_ints", "add", add_args, floor_add),
        ("b_one_string", "greet", greet_args, floor_greet),
        ("c_nested", "ship", ship_args, floor_ship),
    ];
    for (label, tool, args, floor) in cases {
        group.bench_function(format!("{label}/floor"), |b| {
            b.iter_batched(args, |v| black_box(floor(v)), BatchSize::SmallInput)
        });
        group.bench_function(format!("{label}/toolnexus"), |b| {
            b.iter_batched(
                args,
                |v| black_box(now(small.execute(tool, v, Context::default()))),
                BatchSize::SmallInput,
            )
        });
        // The per-call context is built in the measured part, as toolnexus's
        // `Context::default()` is: a clone of the prepared `RequestContext` (the peer's
        // handles) and the `ToolCallContext` around the arguments.
        group.bench_function(format!("{label}/rmcp"), |b| {
            b.iter_batched(
                args,
                |v| {
                    let context = with_rmcp::context(&server, request.clone(), tool, v);
                    black_box(now(with_rmcp::call(&rmcp_small, context)))
                },
                BatchSize::SmallInput,
            )
        });
        // The same with the context built outside the measured part: `ToolRouter::call`
        // alone, rmcp's most favourable reading.
        group.bench_function(format!("{label}/rmcp_call_only"), |b| {
            b.iter_batched(
                || with_rmcp::context(&server, request.clone(), tool, args()),
                |context| black_box(now(with_rmcp::call(&rmcp_small, context))),
                BatchSize::SmallInput,
            )
        });
    }
    group.bench_function("d_among_50/floor", |b| {
        b.iter_batched(add_args, |v| black_box(floor_add(v)), BatchSize::SmallInput)
    });
    group.bench_function("d_among_50/toolnexus", |b| {
        b.iter_batched(
            add_args,
            |v| black_box(now(big.execute("add", v, Context::default()))),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("d_among_50/rmcp", |b| {
        b.iter_batched(
            add_args,
            |v| {
                let context = with_rmcp::context(&server, request.clone(), "add", v);
                black_box(now(with_rmcp::call(&rmcp_big, context)))
            },
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

fn stateful(c: &mut Criterion) {
    let kits = [
        ("free_fn", Toolkit::new().with(welcome::tool())),
        (
            "toolset_method",
            Toolkit::new().with_toolset(Greeter { greeting: GREETING }),
        ),
        (
            "state_param",
            Toolkit::new()
                .with_state(Greeting(GREETING))
                .with(welcome_with_state::tool()),
        ),
    ];
    for (label, kit) in &kits {
        let result = now(kit.execute("welcome", greet_args(), Context::default()));
        assert_eq!(result.output, "hello Ada Lovelace", "{label}");
    }
    let mut group = c.benchmark_group("stateful");
    for (label, kit) in &kits {
        group.bench_function(*label, |b| {
            b.iter_batched(
                greet_args,
                |v| black_box(now(kit.execute("welcome", v, Context::default()))),
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();
}

fn text_args(c: &mut Criterion) {
    let toolkit = Toolkit::new().with(add::tool()).with(ship::tool());
    let server = with_rmcp::Server;
    let router = with_rmcp::Server::tool_router();
    let rt = runtime();
    let _guard = rt.enter();
    let (request, _keep) = with_rmcp::request_context();
    let mut group = c.benchmark_group("text_args");
    let ship_text = ship_args().to_string();
    let add_text = add_args().to_string();
    for (label, text) in [("add", &add_text), ("ship", &ship_text)] {
        group.bench_function(format!("{label}/floor"), |b| {
            b.iter(|| {
                let text = black_box(text.as_str());
                if label == "add" {
                    let a: AddArgs = serde_json::from_str(text).unwrap();
                    black_box(ok(add(a.a, a.b)).to_string())
                } else {
                    let a: ShipArgs = serde_json::from_str(text).unwrap();
                    black_box(ok(ship(a.order, a.to, a.note, a.speed)).to_string())
                }
            })
        });
        group.bench_function(format!("{label}/toolnexus"), |b| {
            b.iter(|| {
                black_box(now(toolkit.execute_json(
                    label,
                    black_box(text),
                    Context::default(),
                )))
            })
        });
        // rmcp takes arguments as a JSON object: the text is parsed into one first, as an
        // application calling rmcp tools with a provider's arguments would.
        group.bench_function(format!("{label}/rmcp"), |b| {
            b.iter_batched(
                || request.clone(),
                |request| {
                    let args: with_rmcp::Object = serde_json::from_str(black_box(text)).unwrap();
                    let context = with_rmcp::context(&server, request, label, Value::Object(args));
                    black_box(now(with_rmcp::call(&router, context)))
                },
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();
}

fn listing(c: &mut Criterion) {
    let mut group = c.benchmark_group("listing_50");
    type List = fn(&Toolkit) -> Listing;
    let adapters: [(&str, List); 4] = [
        ("openai", Toolkit::to_openai),
        ("anthropic", Toolkit::to_anthropic),
        ("gemini", Toolkit::to_gemini),
        ("mcp", Toolkit::to_mcp),
    ];
    for (name, list) in adapters {
        group.bench_function(format!("{name}/first"), |b| {
            b.iter_batched(fifty, |kit| black_box(list(&kit)), BatchSize::SmallInput)
        });
        let kit = fifty();
        group.bench_function(format!("{name}/repeated"), |b| {
            b.iter(|| black_box(list(&kit)))
        });
    }
    // With serialization, as a request body or a `tools/list` answer needs it.
    let kit = fifty();
    group.bench_function("openai_text/repeated", |b| {
        b.iter(|| black_box(serde_json::to_string(&kit.to_openai()).unwrap()))
    });
    group.bench_function("mcp_text/repeated", |b| {
        b.iter(|| black_box(serde_json::to_string(&kit.to_mcp()).unwrap()))
    });
    // The shared listing (`Toolkit::listing`): a handle, and its text serialized once,
    // copied into a `String` of its own as rmcp's line produces one.
    let openai = kit.listing(Profile::OpenAi);
    assert_eq!(
        openai.json(),
        serde_json::to_string(&kit.to_openai()).unwrap()
    );
    group.bench_function("shared/repeated", |b| {
        b.iter(|| black_box(kit.listing(Profile::OpenAi)))
    });
    group.bench_function("shared_text/repeated", |b| {
        b.iter(|| black_box(kit.listing(Profile::OpenAi).json().to_owned()))
    });
    group.bench_function("shared_mcp_text/repeated", |b| {
        b.iter(|| black_box(kit.listing(Profile::Mcp).json().to_owned()))
    });
    // rmcp builds each tool's schema when its router is built, then lists by cloning the
    // tool entries (schemas are shared behind `Arc`s) and sorting them by name.
    group.bench_function("rmcp/first", |b| {
        b.iter_batched(
            with_rmcp::fifty,
            |router| black_box(with_rmcp::list(&router)),
            BatchSize::SmallInput,
        )
    });
    let router = with_rmcp::fifty();
    group.bench_function("rmcp/repeated", |b| {
        b.iter(|| black_box(with_rmcp::list(&router)))
    });
    group.finish();
}

/// `DISPATCH_COUNT=CASE/SIDE:N` runs one side of one dispatch case `N` times and exits,
/// with no criterion around it, for an instruction counter: `benches/instructions.py`
/// runs it under callgrind at two counts, so that setup cancels out. CASE is `a_two_ints`,
/// `b_one_string` or `c_nested`; SIDE is `args` (building the argument `Value` only, to be
/// subtracted), `floor`, `toolnexus` or `rmcp` (with its per-call context).
fn count(spec: &str) {
    let (case, n) = spec.rsplit_once(':').expect("CASE/SIDE:N");
    let n: usize = n.parse().expect("N is a count");
    let (case, side) = case.split_once('/').expect("CASE/SIDE:N");
    if case == "stateful" {
        return count_stateful(side, n);
    }
    type Case = (&'static str, fn() -> Value, fn(Value) -> String);
    let (tool, args, floor): Case = match case {
        "a_two_ints" => ("add", add_args, floor_add),
        "b_one_string" => ("greet", greet_args, floor_greet),
        "c_nested" => ("ship", ship_args, floor_ship),
        other => panic!("unknown case {other}"),
    };
    let small = Toolkit::new()
        .with(add::tool())
        .with(greet::tool())
        .with(ship::tool());
    let server = with_rmcp::Server;
    let router = with_rmcp::Server::tool_router();
    let rt = runtime();
    let _guard = rt.enter();
    let (request, _keep) = with_rmcp::request_context();
    for _ in 0..n {
        let v = black_box(args());
        match side {
            "args" => drop(black_box(v)),
            "floor" => drop(black_box(floor(v))),
            "toolnexus" => drop(black_box(now(small.execute(tool, v, Context::default())))),
            "rmcp" => {
                let context = with_rmcp::context(&server, request.clone(), tool, v);
                drop(black_box(now(with_rmcp::call(&router, context))))
            }
            other => panic!("unknown side {other}"),
        }
    }
}

/// `stateful/SIDE:N`: the `welcome` tool as a free function, a `#[toolset]` method or a
/// `State<T>` tool (side `args`: building the arguments alone).
fn count_stateful(side: &str, n: usize) {
    let toolkit = match side {
        "args" | "free_fn" => Toolkit::new().with(welcome::tool()),
        "toolset_method" => Toolkit::new().with_toolset(Greeter { greeting: GREETING }),
        "state_param" => Toolkit::new()
            .with_state(Greeting(GREETING))
            .with(welcome_with_state::tool()),
        other => panic!("unknown side {other}"),
    };
    for _ in 0..n {
        let v = black_box(greet_args());
        if side == "args" {
            drop(black_box(v));
        } else {
            drop(black_box(now(toolkit.execute(
                "welcome",
                v,
                Context::default(),
            ))));
        }
    }
}

criterion_group!(benches, dispatch, stateful, text_args, listing);

fn main() {
    if let Ok(spec) = std::env::var("DISPATCH_COUNT") {
        return count(&spec);
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
