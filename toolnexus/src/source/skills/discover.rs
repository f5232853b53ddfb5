//! Finding `SKILL.md` files and reading their frontmatter.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use yaml_rust2::{Yaml, YamlLoader};

use super::{Skill, SkipReason, SkippedSkill};

/// Folders never searched: dependencies and version control.
const IGNORED_DIRS: [&str; 2] = ["node_modules", ".git"];

/// Where discovery may go, and how much of a `SKILL.md` it reads.
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    pub(super) follow_links_outside: bool,
    pub(super) max_skill_size: u64,
}

/// What a walk found: a file to visit, or a symbolic link it did not follow because it
/// leads out of the walk's bound (with where it leads).
pub(super) enum Found<'a> {
    File(&'a Path),
    Outside(&'a Path, PathBuf),
}

/// Every `SKILL.md` under `root`, parsed, in walk order, and the real path of `root`
/// (the bound of its skills' file samples, when links out of it are not followed).
pub(super) fn under(
    root: &Path,
    limits: Limits,
) -> (Vec<Result<Skill, SkippedSkill>>, Option<PathBuf>) {
    let root = std::path::absolute(root).unwrap_or_else(|_| root.to_owned());
    let real = fs::metadata(&root)
        .and_then(|m| {
            if m.is_dir() {
                fs::canonicalize(&root)
            } else {
                Err(std::io::Error::other("not a folder"))
            }
        })
        .map_err(|error| SkippedSkill {
            location: root.clone(),
            reason: SkipReason::Unreadable(format!("the skills folder: {error}")),
        });
    let real = match real {
        Ok(real) => real,
        Err(skipped) => return (vec![Err(skipped)], None),
    };
    let bound = (!limits.follow_links_outside).then_some(real.as_path());
    let mut found = Vec::new();
    walk(&root, bound, &mut HashSet::new(), &mut |entry| {
        match entry {
            Found::File(path) if path.file_name().is_some_and(|n| n == "SKILL.md") => {
                found.push(Ok(path.to_owned()));
            }
            Found::File(_) => {}
            Found::Outside(link, target) => found.push(Err(SkippedSkill {
                location: link.to_owned(),
                reason: SkipReason::OutsideRoot(target),
            })),
        }
        true
    });
    let skills = found
        .into_iter()
        .map(|file| file.and_then(|file| read(&file, limits.max_skill_size)))
        .collect();
    (skills, Some(real))
}

/// Visits the files under `dir` depth first: a folder's files (sorted by name), then its
/// folders (sorted). Symbolic links are followed, but with a `bound` (a real path) only
/// those whose target is inside it: another is reported as [`Found::Outside`] and not
/// followed. A folder already visited (by its real path) is not entered again. `visit`
/// returns `false` to stop the walk.
pub(super) fn walk(
    dir: &Path,
    bound: Option<&Path>,
    seen: &mut HashSet<PathBuf>,
    visit: &mut dyn FnMut(Found<'_>) -> bool,
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
        let is_link = fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink());
        if is_link && let Some(bound) = bound {
            // A dangling link is skipped below.
            if let Ok(target) = fs::canonicalize(&path)
                && !target.starts_with(bound)
            {
                if !visit(Found::Outside(&path, target)) {
                    return false;
                }
                continue;
            }
        }
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
        } else if meta.is_file() && !visit(Found::File(&path)) {
            return false;
        }
    }
    for sub in dirs {
        if !walk(&sub, bound, seen, visit) {
            return false;
        }
    }
    true
}

fn read(file: &Path, max_size: u64) -> Result<Skill, SkippedSkill> {
    use std::io::Read as _;
    let skipped = |reason| SkippedSkill {
        location: file.to_owned(),
        reason,
    };
    let unreadable = |e: std::io::Error| skipped(SkipReason::Unreadable(e.to_string()));
    let opened = fs::File::open(file).map_err(unreadable)?;
    let size = opened.metadata().map_err(unreadable)?.len();
    let mut bytes = Vec::new();
    // At most one byte past the limit: a file that grows after the size was read is
    // still caught.
    opened
        .take(max_size.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    if size > max_size || bytes.len() as u64 > max_size {
        return Err(skipped(SkipReason::TooLarge {
            size: size.max(bytes.len() as u64),
            limit: max_size,
        }));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        skipped(SkipReason::Unreadable(format!(
            "it is not UTF-8 text: {}",
            e.utf8_error()
        )))
    })?;
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
