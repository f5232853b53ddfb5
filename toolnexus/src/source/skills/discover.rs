//! Finding `SKILL.md` files and reading their frontmatter.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use yaml_rust2::{Yaml, YamlLoader};

use super::{Skill, SkipReason, SkippedSkill};

/// Folders never searched: dependencies and version control.
const IGNORED_DIRS: [&str; 2] = ["node_modules", ".git"];

/// Every `SKILL.md` under `root`, parsed, in walk order.
pub(super) fn under(root: &Path) -> Vec<Result<Skill, SkippedSkill>> {
    let root = std::path::absolute(root).unwrap_or_else(|_| root.to_owned());
    if let Err(error) = fs::metadata(&root).and_then(|m| {
        if m.is_dir() {
            Ok(())
        } else {
            Err(std::io::Error::other("not a folder"))
        }
    }) {
        return vec![Err(SkippedSkill {
            location: root,
            reason: SkipReason::Unreadable(format!("the skills folder: {error}")),
        })];
    }
    let mut files = Vec::new();
    walk(&root, &mut HashSet::new(), &mut |path| {
        if path.file_name().is_some_and(|n| n == "SKILL.md") {
            files.push(path.to_owned());
        }
        true
    });
    files.into_iter().map(|file| read(&file)).collect()
}

/// Visits the files under `dir` depth first: a folder's files (sorted by name), then its
/// folders (sorted). Symbolic links are followed; a folder already visited (by its real
/// path) is not entered again. `visit` returns `false` to stop the walk.
pub(super) fn walk(
    dir: &Path,
    seen: &mut HashSet<PathBuf>,
    visit: &mut dyn FnMut(&Path) -> bool,
) -> bool {
    if let Ok(real) = fs::canonicalize(dir)
        && !seen.insert(real)
    {
        return true;
    }
    let Ok(entries) = fs::read_dir(dir) else {
        return true;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    let mut dirs = Vec::new();
    for path in entries {
        // `metadata` follows symbolic links; a dangling link is skipped.
        let Ok(meta) = fs::metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            let ignored = path
                .file_name()
                .is_some_and(|n| IGNORED_DIRS.iter().any(|i| n == *i));
            if !ignored {
                dirs.push(path);
            }
        } else if meta.is_file() && !visit(&path) {
            return false;
        }
    }
    for sub in dirs {
        if !walk(&sub, seen, visit) {
            return false;
        }
    }
    true
}

fn read(file: &Path) -> Result<Skill, SkippedSkill> {
    let skipped = |reason| SkippedSkill {
        location: file.to_owned(),
        reason,
    };
    let text =
        fs::read_to_string(file).map_err(|e| skipped(SkipReason::Unreadable(e.to_string())))?;
    let (yaml, content) = split(&text);
    let fields = match yaml {
        Some(yaml) => fields(yaml).map_err(|why| skipped(SkipReason::MalformedFrontmatter(why)))?,
        None => Vec::new(),
    };
    let field = |key: &str| {
        fields
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
    };
    let name = field("name")
        .filter(|n| !n.is_empty())
        .ok_or_else(|| skipped(SkipReason::MissingName))?;
    Ok(Skill {
        name,
        description: field("description"),
        location: file.to_owned(),
        content: content.to_owned(),
    })
}

/// The frontmatter (between a first line `---` and the next line `---`) and the rest.
/// Text without frontmatter is all content.
pub(super) fn split(text: &str) -> (Option<&str>, &str) {
    let Some(after_open) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return (None, text);
    };
    let mut offset = 0;
    for line in after_open.split_inclusive('\n') {
        let bare = line.trim_end_matches('\n').trim_end_matches('\r');
        if bare == "---" {
            let yaml = after_open[..offset]
                .trim_end_matches('\n')
                .trim_end_matches('\r');
            return (Some(yaml), &after_open[offset + line.len()..]);
        }
        offset += line.len();
    }
    (None, text)
}

/// The scalar fields of a YAML mapping, as trimmed text, in order. Nested values are left
/// out; an empty document has no fields.
fn fields(yaml: &str) -> Result<Vec<(String, String)>, String> {
    let docs = YamlLoader::load_from_str(yaml).map_err(|e| e.to_string())?;
    let map = match docs.into_iter().next() {
        None | Some(Yaml::Null) => return Ok(Vec::new()),
        Some(Yaml::Hash(map)) => map,
        Some(_) => return Err("the frontmatter is not a mapping of keys to values".to_owned()),
    };
    Ok(map
        .into_iter()
        .filter_map(|(key, value)| Some((scalar(key)?, scalar(value)?.trim().to_owned())))
        .collect())
}

fn scalar(value: Yaml) -> Option<String> {
    match value {
        Yaml::String(s) | Yaml::Real(s) => Some(s),
        Yaml::Integer(i) => Some(i.to_string()),
        Yaml::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frontmatter_is_split_off() {
        assert_eq!(
            split("---\nname: a\n---\nbody\n"),
            (Some("name: a"), "body\n")
        );
        assert_eq!(
            split("---\r\nname: a\r\n---\r\nbody"),
            (Some("name: a"), "body")
        );
        assert_eq!(split("---\nname: a\n---"), (Some("name: a"), ""));
        assert_eq!(split("no frontmatter"), (None, "no frontmatter"));
        assert_eq!(split("---\nunclosed"), (None, "---\nunclosed"));
    }

    #[test]
    fn scalars_are_text_and_trimmed() {
        let got =
            fields("name: s\ndescription: >\n  folded\n  text\nversion: 2\nok: true\nlist: [1]\n")
                .unwrap();
        assert_eq!(
            got,
            vec![
                ("name".to_owned(), "s".to_owned()),
                ("description".to_owned(), "folded text".to_owned()),
                ("version".to_owned(), "2".to_owned()),
                ("ok".to_owned(), "true".to_owned()),
            ]
        );
        assert!(fields("name: [unclosed").is_err());
        assert!(fields("- a list").is_err());
        assert_eq!(fields("").unwrap(), vec![]);
    }
}
