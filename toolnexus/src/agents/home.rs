//! The agent home (the contract's §7E): an agent defined by a folder of Markdown files,
//! and the file-backed `memory` tool it edits its own notes with.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::tool::def::Tool;
use crate::tool::result::ToolResult;

use super::def::Agent;

/// The files of an agent's folder, in the order they enter its soul.
pub const BOOTSTRAP_ORDER: [&str; 7] = [
    "AGENTS.md",
    "SOUL.md",
    "IDENTITY.md",
    "USER.md",
    "TOOLS.md",
    "HEARTBEAT.md",
    "MEMORY.md",
];

/// The cap on each file, in bytes: a larger file is cut there (at the last whole
/// character) with a notice; the file on disk is left alone.
pub const MAX_BOOTSTRAP_FILE_BYTES: usize = 2 * 1024 * 1024;

const TRUNCATION_NOTICE: &str = "\n[truncated: exceeds 2 MB bootstrap cap]";

/// The name of the memory tool.
pub const MEMORY_TOOL: &str = "memory";

fn read_capped(path: &Path) -> io::Result<Option<String>> {
    let raw = match fs::read(path) {
        Ok(raw) => raw,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io::Error::new(e.kind(), format!("{}: {e}", path.display()))),
    };
    if raw.len() > MAX_BOOTSTRAP_FILE_BYTES {
        let cut = &raw[..MAX_BOOTSTRAP_FILE_BYTES];
        let whole = match std::str::from_utf8(cut) {
            Ok(text) => text,
            Err(e) => std::str::from_utf8(&cut[..e.valid_up_to()]).unwrap_or_default(),
        };
        return Ok(Some(format!("{whole}{TRUNCATION_NOTICE}")));
    }
    String::from_utf8(raw).map(Some).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{}: {e}", path.display()),
        )
    })
}

/// The soul composed from `dir`'s [`BOOTSTRAP_ORDER`] files (each present one a
/// `## <file>` section, its text trimmed), and the files found, in order.
pub fn compose_soul(dir: impl AsRef<Path>) -> io::Result<(String, Vec<String>)> {
    let dir = dir.as_ref();
    let mut sections = Vec::new();
    let mut found = Vec::new();
    for file in BOOTSTRAP_ORDER {
        if let Some(body) = read_capped(&dir.join(file))? {
            sections.push(format!("## {file}\n\n{}", body.trim()));
            found.push(file.to_owned());
        }
    }
    Ok((sections.join("\n\n"), found))
}

/// The `memory` tool over `dir`: `add` appends an entry, `replace` swaps an existing
/// substring (`with`), `remove` deletes one; `target` is `self` (`MEMORY.md`, the default)
/// or `user` (`USER.md`). Every action writes to disk; the running session's soul does
/// not change (the next session reads the notes). A substring that is not there is an
/// error result.
pub fn memory_tool(dir: impl Into<PathBuf>) -> Tool {
    let dir: PathBuf = dir.into();
    let schema = json!({
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": ["add", "replace", "remove"]},
            "target": {"type": "string", "enum": ["self", "user"]},
            "text": {"type": "string", "description": "For add: the entry. For replace/remove: the existing text."},
            "with": {"type": "string", "description": "For replace: the replacement text."},
        },
        "required": ["action", "text"],
    });
    Tool::new_sync(
        MEMORY_TOOL,
        "Persist durable memory. action=add appends an entry; replace swaps an existing \
         substring; remove deletes one. target=self (MEMORY.md, default) or user (USER.md). \
         Writes persist to disk and load at the START of your next session — they do NOT \
         change your current context.",
        schema,
        move |args, _| remember(&dir, &args),
    )
}

fn remember(dir: &Path, args: &Value) -> ToolResult {
    let text = |key: &str| args.get(key).and_then(Value::as_str).unwrap_or_default();
    let (action, target, entry) = (text("action"), text("target"), text("text"));
    let name = if target == "user" {
        "USER.md"
    } else {
        "MEMORY.md"
    };
    let file = dir.join(name);
    let current = match fs::read_to_string(&file) {
        Ok(current) => current,
        Err(e) if e.kind() == io::ErrorKind::NotFound => String::new(),
        Err(e) => return ToolResult::error(format!("memory: cannot read {}: {e}", file.display())),
    };
    let next = match action {
        "add" => format!("{}\n- {entry}\n", current.trim_end())
            .trim_start()
            .to_owned(),
        "replace" | "remove" if !current.contains(entry) => {
            return ToolResult::error(format!("not found: {entry}"));
        }
        "replace" => current.replace(entry, text("with")),
        "remove" => current.replace(entry, ""),
        other => return ToolResult::error(format!("unknown action: {other}")),
    };
    if let Err(e) = fs::create_dir_all(dir).and_then(|()| fs::write(&file, next)) {
        return ToolResult::error(format!("memory: cannot write {}: {e}", file.display()));
    }
    ToolResult::ok(format!("ok ({action} → {name}); loads next session"))
}

impl Agent {
    /// The agent a folder defines: named after the folder, its soul composed from the
    /// [`BOOTSTRAP_ORDER`] files present (read now: the soul is fixed for the session),
    /// and, with `memory`, the [`memory_tool`] over the same folder.
    pub fn from_dir(dir: impl AsRef<Path>, memory: bool) -> io::Result<Agent> {
        let dir = dir.as_ref();
        let (soul, _) = compose_soul(dir)?;
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "agent".to_owned());
        let mut agent = Agent::new(name)
            .does(format!("persona agent from {}", dir.display()))
            .soul(soul);
        if memory {
            agent = agent.tool(memory_tool(dir));
        }
        Ok(agent)
    }
}
