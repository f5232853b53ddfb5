//! The ten tools' names, descriptions and input schemas, as the contract's Python port
//! 0.21.0 lists them (key order included): every listing shows them byte for byte.

use serde_json::{Value, json};

/// What the listings show of one built-in tool.
pub(super) struct Spec {
    pub(super) name: &'static str,
    pub(super) description: &'static str,
    pub(super) schema: fn() -> Value,
}

/// The ten, in the contract's order.
pub(super) const SPECS: [Spec; 10] = [
    Spec {
        name: "bash",
        description: "Run a shell command and return its combined stdout+stderr. Non-zero exit is an error.",
        schema: bash,
    },
    Spec {
        name: "read",
        description: "Read a file. A known media file (png/jpg/jpeg/gif/webp/pdf/mp3/wav) comes back as a content part; otherwise it is read as UTF-8 text, and with offset/limit only that line window is returned.",
        schema: read,
    },
    Spec {
        name: "write",
        description: "Write content to a file (create/overwrite), creating parent directories.",
        schema: write,
    },
    Spec {
        name: "edit",
        description: "Exact-string replace in a file. Default replaces a single unique occurrence; replaceAll replaces all.",
        schema: edit,
    },
    Spec {
        name: "grep",
        description: "Search file contents by regex under a directory. Output is file:line:text matches.",
        schema: grep,
    },
    Spec {
        name: "glob",
        description: "List files matching a glob under a directory. Output is newline-joined relative paths.",
        schema: glob,
    },
    Spec {
        name: "webfetch",
        description: "HTTP GET a URL and return its body as text, markdown, or html.",
        schema: webfetch,
    },
    Spec {
        name: "question",
        description: "Ask the host one or more questions. Suspends via a kind:\"question\" Request (§10); the host's waitFor resolves it and the answer is returned to the model.",
        schema: question,
    },
    Spec {
        name: "apply_patch",
        description: "Apply a patch (Begin/End Patch grammar: Add/Update/Delete File). Atomic — a non-matching hunk aborts with no writes.",
        schema: apply_patch,
    },
    Spec {
        name: "todowrite",
        description: "Replace the session todo list. Returns the rendered list.",
        schema: todowrite,
    },
];

fn object(properties: Value, required: &[&str]) -> Value {
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false
    })
}

fn string(description: &str) -> Value {
    json!({"type": "string", "description": description})
}

fn number(description: &str) -> Value {
    json!({"type": "number", "description": description})
}

fn bash() -> Value {
    object(
        json!({
            "command": string("The shell command to run"),
            "workdir": string("Working directory (default: process cwd)"),
            "timeout": number("Timeout in milliseconds (default 60000)"),
            "description": string("Human-readable description of the command"),
        }),
        &["command"],
    )
}

fn read() -> Value {
    object(
        json!({
            "path": string("Path to the file to read"),
            "offset": number("1-based line to start from"),
            "limit": number("Maximum number of lines to read"),
        }),
        &["path"],
    )
}

fn write() -> Value {
    object(
        json!({
            "path": string("Path to write to"),
            "content": string("Content to write"),
        }),
        &["path", "content"],
    )
}

fn edit() -> Value {
    object(
        json!({
            "path": string("Path to the file to edit"),
            "oldString": string("Exact string to replace"),
            "newString": string("Replacement string"),
            "replaceAll": {"type": "boolean", "description": "Replace all occurrences"},
        }),
        &["path", "oldString", "newString"],
    )
}

fn grep() -> Value {
    object(
        json!({
            "pattern": string("Regular expression to search for"),
            "path": string("Directory to search (default: process cwd)"),
            "include": string("Glob filter for file names"),
            "limit": number("Maximum number of matches (default 100)"),
        }),
        &["pattern"],
    )
}

fn glob() -> Value {
    object(
        json!({
            "pattern": string("Glob pattern to match"),
            "path": string("Directory to search (default: process cwd)"),
            "limit": number("Maximum number of results (default 100)"),
        }),
        &["pattern"],
    )
}

fn webfetch() -> Value {
    object(
        json!({
            "url": string("URL to fetch"),
            "format": {
                "type": "string",
                "enum": ["text", "markdown", "html"],
                "description": "Response format (default markdown)",
            },
            "timeout": number("Timeout in seconds (default 30)"),
        }),
        &["url"],
    )
}

fn question() -> Value {
    object(
        json!({
            "questions": {
                "type": "array",
                "description": "Questions to ask",
                "items": {
                    "type": "object",
                    "properties": {
                        "question": {"type": "string"},
                        "header": {"type": "string"},
                        "options": {"type": "array", "items": {"type": "string"}},
                        "multiple": {"type": "boolean"},
                    },
                    "required": ["question"],
                },
            }
        }),
        &["questions"],
    )
}

fn apply_patch() -> Value {
    object(
        json!({
            "patchText": string("The patch text in Begin/End Patch format"),
        }),
        &["patchText"],
    )
}

fn todowrite() -> Value {
    object(
        json!({
            "todos": {
                "type": "array",
                "description": "The full todo list to store",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string"},
                        "text": {"type": "string"},
                        "completed": {"type": "boolean"},
                    },
                    "required": ["id", "text", "completed"],
                },
            }
        }),
        &["todos"],
    )
}
