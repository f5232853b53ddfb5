//! Agent Skills: folders with a `SKILL.md` (YAML frontmatter, then instructions), found
//! under one or more roots and offered to the model through one `skill` tool that loads a
//! skill's instructions and lists its files on demand (progressive disclosure).

mod discover;
mod tool;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::tool::{Tool, Toolkit};

pub use tool::{SKILL_TOOL_DESCRIPTION, SKILLS_PROMPT_PREAMBLE};

/// How many files of a skill's folder the `skill` tool lists by default.
pub const DEFAULT_SAMPLE_LIMIT: usize = 10;

/// The largest `SKILL.md` discovery reads by default: 1 MiB (skills are instructions a
/// model reads; a larger file is skipped with [`SkipReason::TooLarge`]).
pub const DEFAULT_MAX_SKILL_SIZE: u64 = 1024 * 1024;

/// One skill: the frontmatter's `name` and `description`, where its `SKILL.md` is, and the
/// instructions after the frontmatter.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Skill {
    /// The frontmatter's `name` (trimmed).
    pub name: String,
    /// The frontmatter's `description` (trimmed), if it has one. Only described skills are
    /// listed by [`Skills::skills_prompt`].
    pub description: Option<String>,
    /// The absolute path of the `SKILL.md` file.
    pub location: PathBuf,
    /// Everything after the frontmatter, as written.
    pub content: String,
}

impl Skill {
    /// The skill's folder: the base of the relative paths its instructions use.
    pub fn dir(&self) -> &Path {
        self.location.parent().unwrap_or(Path::new("/"))
    }
}

/// Why a `SKILL.md` (or a skills root) gave no skill.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SkipReason {
    /// The frontmatter has no `name`, or it is empty or not a scalar.
    MissingName,
    /// The frontmatter is not valid YAML, or not a mapping; the parser's words.
    MalformedFrontmatter(String),
    /// A skill of the same name was found first; the first one is kept.
    DuplicateName(String),
    /// The file or folder could not be read; what the operating system said.
    Unreadable(String),
    /// The file is larger than the limit ([`SkillsLoader::max_skill_size`]).
    TooLarge {
        /// The file's size in bytes.
        size: u64,
        /// The limit in bytes.
        limit: u64,
    },
    /// A symbolic link that leads out of the skills folder, to this real path: not
    /// followed (see [`SkillsLoader::follow_links_outside`]).
    OutsideRoot(PathBuf),
}

/// A `SKILL.md` (or a skills root) that gave no skill, and why. Each is also logged as a
/// `tracing` warning when the skills are loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SkippedSkill {
    /// The file (or the root) that was skipped.
    pub location: PathBuf,
    /// Why.
    pub reason: SkipReason,
}

impl fmt::Display for SkippedSkill {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = self.location.display();
        match &self.reason {
            SkipReason::MissingName => write!(
                f,
                "skipped the skill {at}: its frontmatter has no `name` (add `name: my-skill` between the `---` lines)"
            ),
            SkipReason::MalformedFrontmatter(why) => write!(
                f,
                "skipped the skill {at}: its frontmatter is not a YAML mapping: {why}"
            ),
            SkipReason::DuplicateName(name) => write!(
                f,
                "skipped the skill {at}: a skill named `{name}` was found first, and is kept"
            ),
            SkipReason::Unreadable(why) => write!(f, "skipped {at}: cannot read it: {why}"),
            SkipReason::TooLarge { size, limit } => write!(
                f,
                "skipped the skill {at}: it is {size} bytes, over the limit of {limit} \
                 (`Skills::loader().max_skill_size(…)` sets another)"
            ),
            SkipReason::OutsideRoot(target) => write!(
                f,
                "skipped {at}: it is a symbolic link out of the skills folder (to {}), not \
                 followed (`Skills::loader().follow_links_outside(true)` follows such links)",
                target.display()
            ),
        }
    }
}

/// The skills found under one or more folders, and the `skill` tool that loads them.
///
/// ```no_run
/// use toolnexus::source::Skills;
/// use toolnexus::Toolkit;
///
/// let skills = Skills::load("skills");           // every skills/**/SKILL.md
/// for skipped in skills.skipped() {
///     eprintln!("{skipped}");                    // no `name`, bad YAML, duplicates…
/// }
/// let system = format!("You are helpful.\n\n{}", skills.skills_prompt());
/// let toolkit = Toolkit::new().with(skills.tool());
/// # let _ = (system, toolkit);
/// ```
///
/// Discovery walks each root recursively (never twice into the same folder, skipping
/// `node_modules` and `.git`), in the order of the file names, and reads every file named
/// `SKILL.md`:
///
/// - the frontmatter between the opening `---` line and the next `---` line is parsed as
///   YAML; `name` is required, `description` optional; scalar values (numbers and
///   booleans too) are read as text and trimmed, so folded and literal block scalars work;
/// - the rest of the file is the skill's instructions;
/// - a file without a `name`, with frontmatter that is not YAML, or whose name was
///   already found, is skipped (first name wins) with a warning naming the file, kept in
///   [`Skills::skipped`]. A bad file never stops the others.
///
/// Discovery stays inside each root: a symbolic link is followed only when its target is
/// inside the root too; one leading out of it is not followed, and is reported in
/// [`Skills::skipped`] ([`SkipReason::OutsideRoot`]). The files the `skill` tool lists
/// stay inside the root the same way. A `SKILL.md` larger than 1 MiB
/// ([`DEFAULT_MAX_SKILL_SIZE`]) is skipped ([`SkipReason::TooLarge`]). Both are options of
/// [`Skills::loader`]: `follow_links_outside(true)` follows links anywhere (the toolnexus
/// contract's rule, for a root that links to skills kept elsewhere on purpose).
#[derive(Debug, Clone)]
pub struct Skills {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    skills: Vec<Skill>,
    skipped: Vec<SkippedSkill>,
    sample_limit: usize,
    /// The real paths of the roots, which the file samples stay in; empty when links out
    /// of the roots are followed.
    bounds: Vec<PathBuf>,
}

/// How [`Skills`] are discovered: whether symbolic links may lead out of a root, and the
/// largest `SKILL.md` read. From [`Skills::loader`].
///
/// ```no_run
/// use toolnexus::source::Skills;
///
/// let skills = Skills::loader()
///     .follow_links_outside(true)       // `skills/shared -> /opt/team-skills` is found
///     .max_skill_size(256 * 1024)
///     .load("skills");
/// # let _ = skills;
/// ```
#[derive(Debug, Clone, Copy)]
#[must_use = "a loader does nothing until `load` or `load_all`"]
pub struct SkillsLoader {
    limits: discover::Limits,
}

impl Default for SkillsLoader {
    fn default() -> Self {
        SkillsLoader {
            limits: discover::Limits {
                follow_links_outside: false,
                max_skill_size: DEFAULT_MAX_SKILL_SIZE,
            },
        }
    }
}

impl SkillsLoader {
    /// Whether symbolic links that lead out of a root are followed (default `false`:
    /// such a link is skipped with [`SkipReason::OutsideRoot`]). Turn it on only for
    /// roots whose links you control.
    pub fn follow_links_outside(mut self, follow: bool) -> Self {
        self.limits.follow_links_outside = follow;
        self
    }

    /// The largest `SKILL.md` read, in bytes (default [`DEFAULT_MAX_SKILL_SIZE`]); a
    /// larger one is skipped with [`SkipReason::TooLarge`].
    pub fn max_skill_size(mut self, bytes: u64) -> Self {
        self.limits.max_skill_size = bytes;
        self
    }

    /// The skills under `dir` (see [`Skills`] for the rules).
    pub fn load(self, dir: impl AsRef<Path>) -> Skills {
        self.load_all([dir])
    }

    /// The skills under every folder of `dirs`, in order: a name found in an earlier
    /// folder wins over the same name in a later one.
    pub fn load_all<P: AsRef<Path>>(self, dirs: impl IntoIterator<Item = P>) -> Skills {
        let mut skills: Vec<Skill> = Vec::new();
        let mut skipped = Vec::new();
        let mut bounds = Vec::new();
        for dir in dirs {
            let (found, real) = discover::under(dir.as_ref(), self.limits);
            bounds.extend(real.filter(|_| !self.limits.follow_links_outside));
            for found in found {
                match found {
                    Ok(skill) => match skills.iter().find(|s| s.name == skill.name) {
                        Some(_) => skipped.push(SkippedSkill {
                            reason: SkipReason::DuplicateName(skill.name.clone()),
                            location: skill.location,
                        }),
                        None => skills.push(skill),
                    },
                    Err(skip) => skipped.push(skip),
                }
            }
        }
        for skip in &skipped {
            tracing::warn!("{skip}");
        }
        Skills {
            inner: Arc::new(Inner {
                skills,
                skipped,
                sample_limit: DEFAULT_SAMPLE_LIMIT,
                bounds,
            }),
        }
    }
}

impl Skills {
    /// The skills under `dir` (see [`Skills`] for the rules), with the default
    /// [`SkillsLoader`].
    pub fn load(dir: impl AsRef<Path>) -> Skills {
        Skills::loader().load(dir)
    }

    /// The skills under every folder of `dirs`, in order: a name found in an earlier
    /// folder wins over the same name in a later one. The default [`SkillsLoader`].
    pub fn load_all<P: AsRef<Path>>(dirs: impl IntoIterator<Item = P>) -> Skills {
        Skills::loader().load_all(dirs)
    }

    /// A loader with options: links out of the roots, the largest `SKILL.md`.
    pub fn loader() -> SkillsLoader {
        SkillsLoader::default()
    }

    /// The same skills, with the `skill` tool listing at most `limit` files of a skill's
    /// folder; `0` means the default, [`DEFAULT_SAMPLE_LIMIT`], as the contract's
    /// `sample_limit: 0` does in the Python port. To leave the file list out (the port's
    /// `-1`), use [`without_file_list`](Skills::without_file_list).
    #[must_use]
    pub fn sample_limit(self, limit: usize) -> Skills {
        let limit = if limit == 0 {
            DEFAULT_SAMPLE_LIMIT
        } else {
            limit
        };
        self.sampling(limit)
    }

    /// The same skills, with the `skill` tool listing none of a skill's files (the Python
    /// port's `sample_limit: -1`).
    #[must_use]
    pub fn without_file_list(self) -> Skills {
        self.sampling(0)
    }

    /// The same skills listing `limit` files (`0`: none).
    fn sampling(self, limit: usize) -> Skills {
        Skills {
            inner: Arc::new(Inner {
                skills: self.inner.skills.clone(),
                skipped: self.inner.skipped.clone(),
                sample_limit: limit,
                bounds: self.inner.bounds.clone(),
            }),
        }
    }

    /// The same skills less those named in `names` (the toolnexus contract's
    /// `disableSkills`): neither the `skill` tool nor the prompt has them. A name no skill
    /// has is ignored.
    #[must_use]
    pub fn without<I, S>(self, names: I) -> Skills
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let names: Vec<S> = names.into_iter().collect();
        Skills {
            inner: Arc::new(Inner {
                skills: self
                    .inner
                    .skills
                    .iter()
                    .filter(|skill| !names.iter().any(|name| name.as_ref() == skill.name))
                    .cloned()
                    .collect(),
                skipped: self.inner.skipped.clone(),
                sample_limit: self.inner.sample_limit,
                bounds: self.inner.bounds.clone(),
            }),
        }
    }

    /// The skills found, in discovery order.
    pub fn skills(&self) -> &[Skill] {
        &self.inner.skills
    }

    /// The skill named `name`.
    pub fn get(&self, name: &str) -> Option<&Skill> {
        self.inner.skills.iter().find(|s| s.name == name)
    }

    /// The files and folders that gave no skill, and why.
    pub fn skipped(&self) -> &[SkippedSkill] {
        &self.inner.skipped
    }

    /// The text for the system prompt that tells the model which skills exist: the
    /// instruction preamble ([`SKILLS_PROMPT_PREAMBLE`]), a blank line, then
    /// `## Available Skills` and one `- **name**: description` line per described skill,
    /// sorted by name. Without any described skill it is
    /// `No skills are currently available.`, without the preamble.
    pub fn skills_prompt(&self) -> String {
        tool::prompt(&self.inner.skills)
    }

    /// The one `skill` tool ([`source`](Tool::source) `"skill"`): given a skill's `name`,
    /// it returns the skill's instructions, its base folder and a sample of its files, in
    /// the exact form the toolnexus contract gives (see [`SKILL_TOOL_DESCRIPTION`] for
    /// what the model is told). An unknown name is an error result listing the known ones.
    pub fn tool(&self) -> Tool {
        tool::skill_tool(Arc::clone(&self.inner))
    }
}

impl Toolkit {
    /// Adds the `skill` tool of `skills` and their catalog for the system prompt
    /// ([`Toolkit::skills_prompt`], which [`Client::run`](crate::Client::run) adds after
    /// the client's system prompt).
    ///
    /// ```
    /// use toolnexus::source::Skills;
    /// use toolnexus::Toolkit;
    ///
    /// let toolkit = Toolkit::new().with_skills(&Skills::load("no/such/folder"));
    /// assert!(toolkit.get("skill").is_some());
    /// assert_eq!(toolkit.skills_prompt(), "No skills are currently available.");
    /// ```
    #[must_use]
    pub fn with_skills(self, skills: &Skills) -> Toolkit {
        self.with(skills.tool())
            .with_skills_prompt(skills.skills_prompt())
    }
}
