//! The guide: the manual of toolnexus, one chapter a module, in the order a project meets
//! them. Every Rust block in it is compiled and run as a doc test.
//!
//! | chapter | what it covers |
//! | --- | --- |
//! | [`tools`] | `#[tool]` form by form, state, bad input, results and suspensions, tools without the macro |
//! | [`providers`] | provider profiles and strict mode; OpenAI (Chat Completions and Responses), Anthropic and Gemini as real models, their settings, reasoning across tool calls, prompt caching, fallback and routing between models, an ACP agent as a model, single-turn translation |
//! | [`agent_loop`] | `Client`, the tool-calling loop: hooks, events, cancellation, guardrails, suspensions |
//! | [`context`] | a run's typed output, the context budget (compaction), usage caps, spend in money and its caps, conversations by id |
//! | [`durable`] | durable runs in SQLite or PostgreSQL, and agents run as tools |
//! | [`agents`] | the agent runtime: handles and their six verbs, inboxes, backpressure, budgets across a tree, teams and the `task` tool, suspensions that go up |
//! | [`mcp_server`] | serving a `Toolkit` over MCP (stdio, HTTP, replicas), resources and prompts, human in the loop over MCP, MCP Apps views |
//! | [`mcp_client`] | other MCP servers' tools through `McpClient`, and servers that require a login |
//! | [`a2a`] | A2A both ways: remote agents as tools, and a `Client` served as an A2A agent |
//! | [`ui`] | user interfaces: a run as an event stream, AG-UI and the AI SDK's UI stream, approvals from a page |
//! | [`sources`] | tools from an MCP config file, Agent Skills, HTTP endpoints |
//! | [`builtins`] | the contract's ten built-in tools (bash, read, write, edit, grep, …), their toggles and safety options |
//! | [`observability`] | `tracing` spans and OpenTelemetry export |
//! | [`tool_search`] | many tools: BM25 tool search in the loop |
//! | [`code_mode`] | code mode: one script calls the tools, in a sandboxed QuickJS; suspensions replayed |
//! | [`reliability`] | the benchmarks, property tests, fuzzing and the MCP soak |
//!
//! The chapters live in `toolnexus/docs/guide/` of the repository, where they read as
//! plain Markdown too. Figures (times, ratios, sizes) are in `BENCHMARKS.md`.

#[doc = include_str!("../../docs/guide/tools.md")]
pub mod tools {}

#[doc = include_str!("../../docs/guide/providers.md")]
pub mod providers {}

#[doc = include_str!("../../docs/guide/agent_loop.md")]
pub mod agent_loop {}

#[doc = include_str!("../../docs/guide/context.md")]
pub mod context {}

#[doc = include_str!("../../docs/guide/durable.md")]
pub mod durable {}

#[doc = include_str!("../../docs/guide/agents.md")]
pub mod agents {}

#[doc = include_str!("../../docs/guide/mcp_server.md")]
pub mod mcp_server {}

#[doc = include_str!("../../docs/guide/mcp_client.md")]
pub mod mcp_client {}

#[doc = include_str!("../../docs/guide/a2a.md")]
pub mod a2a {}

#[doc = include_str!("../../docs/guide/ui.md")]
pub mod ui {}

#[doc = include_str!("../../docs/guide/sources.md")]
pub mod sources {}

#[doc = include_str!("../../docs/guide/builtins.md")]
pub mod builtins {}

#[doc = include_str!("../../docs/guide/observability.md")]
pub mod observability {}

#[doc = include_str!("../../docs/guide/tool_search.md")]
pub mod tool_search {}

#[doc = include_str!("../../docs/guide/code_mode.md")]
pub mod code_mode {}

#[doc = include_str!("../../docs/guide/reliability.md")]
pub mod reliability {}
