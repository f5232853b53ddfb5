//! The `skill` tool and the system-prompt catalog, in the contract's exact words.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;

use serde_json::{Value, json};

use super::{Inner, Skill};
use crate::tool::def::Tool;
use crate::tool::result::ToolResult;

/// The `skill` tool's description, as the model reads it (the contract's `skill.txt`,
/// word for word, as opencode words it).
pub const SKILL_TOOL_DESCRIPTION: &str = "Load a specialized skill when the task at hand matches one of the skills listed in the system prompt.

Use this tool to inject the skill's instructions and resources into current conversation. The output may contain detailed workflow guidance as well as references to scripts, files, etc in the same directory as the skill.

The skill name must match one of the skills listed in your system prompt.";

/// The first lines of [`Skills::skills_prompt`](super::Skills::skills_prompt) when a
/// described skill exists (the same words in every toolnexus port).
pub const SKILLS_PROMPT_PREAMBLE: &str =
    "Skills provide specialized instructions and workflows for specific tasks.
Use the skill tool to load a skill when a task matches its description.";

pub(super) fn prompt(skills: &[Skill]) -> String {
    let mut described: Vec<(&str, &str)> = skills
        .iter()
        .filter_map(|s| Some((s.name.as_str(), s.description.as_deref()?)))
        .collect();
    if described.is_empty() {
        return "No skills are currently available.".to_owned();
    }
    described.sort();
    let mut out = format!("{SKILLS_PROMPT_PREAMBLE}\n\n## Available Skills");
    for (name, description) in described {
        let _ = write!(out, "\n- **{name}**: {description}");
    }
    out
}

pub(super) fn skill_tool(skills: Arc<Inner>) -> Tool {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "The name of the skill to load"}
        },
        "required": ["name"],
        "additionalProperties": false
    });
    super::super::sync_tool(
        "skill",
        SKILL_TOOL_DESCRIPTION,
        schema,
        "skill",
        move |args| {
            let name = match &args["name"] {
                Value::String(name) => name.clone(),
                Value::Null => String::new(),
                other => other.to_string(),
            };
            match skills.skills.iter().find(|s| s.name == name) {
                Some(skill) => load(skill, skills.sample_limit, &skills.bounds),
                None => {
                    let mut known: Vec<&str> =
                        skills.skills.iter().map(|s| s.name.as_str()).collect();
                    known.sort_unstable();
                    let known = if known.is_empty() {
                        "none".to_owned()
                    } else {
                        known.join(", ")
                    };
                    ToolResult::error(format!(
                        "Skill \"{name}\" not found. Available skills: {known}"
                    ))
                }
            }
        },
    )
}

/// The `<skill_content>` block: instructions, base folder and sampled files.
fn load(skill: &Skill, limit: usize, bounds: &[std::path::PathBuf]) -> ToolResult {
    let dir = skill.dir();
    let mut lines = vec![
        format!("<skill_content name=\"{}\">", skill.name),
        format!("# Skill: {}", skill.name),
        String::new(),
        skill.content.trim().to_owned(),
        String::new(),
        format!("Base directory for this skill: {}", file_url(dir)),
        "Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory."
            .to_owned(),
    ];
    if limit > 0 {
        let files: Vec<String> = sample(dir, limit, bounds)
            .iter()
            .map(|f| format!("<file>{}</file>", f.display()))
            .collect();
        lines.push("Note: file list is sampled.".to_owned());
        lines.push(String::new());
        lines.push("<skill_files>".to_owned());
        lines.push(files.join("\n"));
        lines.push("</skill_files>".to_owned());
    }
    lines.push("</skill_content>".to_owned());
    ToolResult::ok(lines.join("\n"))
        .with_metadata("name", skill.name.clone())
        .with_metadata("dir", dir.display().to_string())
}

/// Up to `limit` files under `dir` other than `SKILL.md` files, in walk order. With
/// `bounds` (the real paths of the roots), only files inside the root the skill was found
/// in: links out of it are not followed.
fn sample(dir: &Path, limit: usize, bounds: &[std::path::PathBuf]) -> Vec<std::path::PathBuf> {
    let bound = match bounds {
        [] => None,
        _ => {
            let real = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_owned());
            // A skill's folder is inside its root; one that is not (it moved since) is
            // not listed.
            match bounds.iter().find(|b| real.starts_with(b)) {
                Some(bound) => Some(bound.as_path()),
                None => return Vec::new(),
            }
        }
    };
    let mut files = Vec::new();
    super::discover::walk(dir, bound, &mut HashSet::new(), &mut |found| {
        if let super::discover::Found::File(path) = found
            && path.file_name().is_none_or(|n| n != "SKILL.md")
        {
            files.push(path.to_owned());
        }
        files.len() < limit
    });
    files
}

/// `file://` and the absolute path, percent-encoded as Node's `url.pathToFileURL` does
/// (the contract's reference): control characters, space, non-ASCII bytes and
/// `"#%<>?\`{}` plus `\`.
pub(super) fn file_url(path: &Path) -> String {
    let text = path.to_string_lossy();
    let mut out = String::from("file://");
    for byte in text.bytes() {
        let keep = byte.is_ascii_graphic() && !b"\"#%<>?`{}\\".contains(&byte);
        if keep {
            out.push(byte as char);
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_urls_are_encoded_like_node() {
        assert_eq!(file_url(Path::new("/a/b-c_d.e")), "file:///a/b-c_d.e");
        assert_eq!(
            file_url(Path::new("/my skills/#1?é")),
            "file:///my%20skills/%231%3F%C3%A9"
        );
    }
}
