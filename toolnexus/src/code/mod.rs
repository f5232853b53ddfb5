//! Code mode: the model writes one short script that calls the toolkit's tools, instead
//! of calling them one turn at a time.
//!
//! [`CodeMode`] turns a [`Toolkit`] into a toolkit of one tool, `run_code`, whose
//! description lists the tools as TypeScript declarations generated from their schemas
//! ([`CodeMode::declarations`]). The script is JavaScript, run in-process by QuickJS
//! under the app's [`Limits`] (interpreter time, heap, stack, steps, calls, output), with
//! no module loader, no file, network, timer or process access. Its calls
//! (`await tools.lookup({id: 3})`) are ordinary calls of the toolkit, with the same
//! argument validation, approvals and spans, through the [`Hooks`] given to
//! [`CodeMode::hooks`]; calls the script gathers (`await Promise.all([...])`) run
//! concurrently. What it prints (`console.log`, `print`) and the value it returns come
//! back to the model as the call's result.
//!
//! A call that suspends (an approval, [`Suspend::input`](crate::Suspend::input))
//! suspends the script: `run_code` suspends with that call's own request, carrying the
//! script and the results of the calls it already made ([`CODE_STATE_KEY`]). The answer
//! replays the script, the earlier calls served from that record, never run again, and
//! hands the answer to the call that asked. The request lives in the run like any other,
//! so a durable run resumes the script in another process after a crash.
//!
//! ```
//! use toolnexus::code::CodeMode;
//! use toolnexus::{tool, Context, Toolkit};
//!
//! /// Add two numbers.
//! #[tool]
//! fn add(a: i64, b: i64) -> Result<i64, std::convert::Infallible> {
//!     Ok(a + b)
//! }
//!
//! let code = CodeMode::new(toolnexus::tools![add].into_iter().collect::<Toolkit>());
//! assert!(code.declarations().contains("add(args: {"));
//! # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
//! let script = "const [x, y] = await Promise.all([tools.add({a: 1, b: 2}), tools.add({a: 3, b: 4})]);\n\
//!               console.log('sums', x, y);\n\
//!               return x + y;";
//! let result = rt.block_on(code.run(script, Context::default()));
//! assert_eq!(result.output, "sums 3 7\n10");
//! ```
//!
//! The guide's chapter [`code_mode`](crate::_guide::code_mode) tells the rest.

mod engine;
mod host;
mod limits;
mod record;
mod stubs;

use std::fmt;
use std::sync::Arc;

use serde_json::json;

use crate::agent::Hooks;
use crate::tool::{Context, Tool, ToolResult, Toolkit};

pub use host::CODE_KEY;
pub use limits::Limits;
pub use record::CODE_STATE_KEY;

/// The name of code mode's one tool.
pub const RUN_CODE: &str = "run_code";

/// A toolkit seen through one `run_code` tool whose scripts call its tools.
///
/// Cheap to clone; [`CodeMode::tool`] and [`CodeMode::toolkit`] share it.
#[derive(Clone)]
pub struct CodeMode {
    toolkit: Toolkit,
    limits: Limits,
    hooks: Option<Arc<dyn Hooks>>,
}

impl fmt::Debug for CodeMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CodeMode")
            .field("toolkit", &self.toolkit)
            .field("limits", &self.limits)
            .field("hooks", &self.hooks.is_some())
            .finish()
    }
}

impl CodeMode {
    /// Code mode over `toolkit`, with the default [`Limits`].
    pub fn new(toolkit: Toolkit) -> Self {
        CodeMode {
            toolkit,
            limits: Limits::default(),
            hooks: None,
        }
    }

    /// Sets the limits every script runs within.
    #[must_use]
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Runs each of a script's calls through `hooks` (`before_tool`, `after_tool`), as
    /// the loop runs the model's own calls: a deny becomes the call's error, a rewrite
    /// its arguments. Give it the hooks the [`Client`](crate::Client) has, so that a
    /// call made from a script is checked as one made directly.
    #[must_use]
    pub fn hooks(mut self, hooks: impl Hooks + 'static) -> Self {
        self.hooks = Some(Arc::new(hooks));
        self
    }

    /// The toolkit the scripts call.
    pub fn inner(&self) -> &Toolkit {
        &self.toolkit
    }

    /// The tools as TypeScript declarations: `declare const tools: { … }`, one method per
    /// tool with its description, its arguments (names, types, docs) and the type of its
    /// value (from its output schema; `unknown` without one).
    pub fn declarations(&self) -> String {
        stubs::declarations(&self.toolkit)
    }

    /// `run_code`'s description: how to write a script, and the declarations.
    pub fn description(&self) -> String {
        format!(
            "Runs a JavaScript script: the body of an async function, so use `await` and \
             `return` a value. It calls the tools declared below as `await tools.NAME({{...}})`; \
             run independent calls together with `await Promise.all([...])`. A call gives \
             the tool's value (its text parsed as JSON when it is JSON) or throws its error. \
             Do the filtering, joining and arithmetic in the script and return or print \
             only what is needed: what `console.log` prints and the returned value (as \
             JSON) are the result. There are no modules, files, network or timers.\n\n\
             ```ts\n{}```",
            self.declarations()
        )
    }

    /// The `run_code` tool. Its one argument is `code`, the script.
    pub fn tool(&self) -> Tool {
        let mode = self.clone();
        let schema = json!({
            "type": "object",
            "properties": {
                "code": {
                    "type": "string",
                    "description": "The script: JavaScript, the body of an async function."
                }
            },
            "required": ["code"],
            "additionalProperties": false
        });
        Tool::new(RUN_CODE, self.description(), schema, move |args, ctx| {
            let mode = mode.clone();
            async move {
                match args.get("code").and_then(|c| c.as_str()) {
                    Some(code) => mode.run(code, ctx).await,
                    None => ToolResult::error("run_code needs `code`, the script, as a string"),
                }
            }
        })
    }

    /// A toolkit holding `run_code` alone: hand it to [`Client::run`](crate::Client::run)
    /// in place of the toolkit.
    pub fn toolkit(&self) -> Toolkit {
        Toolkit::new().with(self.tool())
    }

    /// Runs `script` as `run_code` would. With the answer to a request a script suspended
    /// on in `ctx` (and that request, [`Context::with_request`]), it replays the script.
    pub async fn run(&self, script: &str, ctx: Context) -> ToolResult {
        host::run(self, script, ctx).await
    }
}
