//! Agent Skills (`toolnexus::source::Skills`) against the toolnexus contract: its shared
//! example skill (`tests/contract/examples/skills`, copied from the contract's repository)
//! must give the contract's outputs byte for byte (`tests/contract/expected`, as the
//! contract's Python port gives them), and the discovery rules of its §3 hold on skill
//! folders made here.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::json;
use toolnexus::source::{DEFAULT_MAX_SKILL_SIZE, SKILL_TOOL_DESCRIPTION, Skills, SkipReason};
use toolnexus::{Context, Toolkit};

fn contract() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/contract")
}

fn expected(name: &str) -> String {
    fs::read_to_string(contract().join("expected").join(name)).expect("expected output")
}

/// A fresh folder under the system's temporary folder, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Scratch {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "toolnexus-skills-{}-{}",
            std::process::id(),
            COUNT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn write(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.0.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, text).unwrap();
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn run<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(f)
}

#[test]
fn the_example_skill_loads_byte_for_byte_as_the_contract_gives_it() {
    let root = contract().join("examples/skills");
    let skills = Skills::load(&root);
    assert!(skills.skipped().is_empty(), "{:?}", skills.skipped());
    let tool = skills.tool();
    assert_eq!(tool.name(), "skill");
    assert_eq!(tool.source(), "skill");
    assert_eq!(tool.description(), SKILL_TOOL_DESCRIPTION);
    assert_eq!(
        tool.input_schema(),
        &json!({
            "type": "object",
            "properties": {"name": {"type": "string", "description": "The name of the skill to load"}},
            "required": ["name"],
            "additionalProperties": false
        })
    );
    let toolkit = Toolkit::new().with(tool);
    let result = run(toolkit.execute("skill", json!({"name": "hello-world"}), Context::default()));
    assert!(!result.is_error, "{}", result.output);
    let dir = root.join("hello-world");
    let want = expected("hello-world.skill.txt").replace("{DIR}", &dir.display().to_string());
    assert_eq!(result.output, want);
    let meta = result.metadata.unwrap();
    assert_eq!(meta["name"], "hello-world");
    assert_eq!(meta["dir"], dir.display().to_string());
}

#[test]
fn the_prompt_and_an_unknown_name_read_as_the_contract_gives_them() {
    let skills = Skills::load(contract().join("examples/skills"));
    assert_eq!(skills.skills_prompt(), expected("skills_prompt.txt"));
    let missing = run(skills
        .tool()
        .execute(json!({"name": "nope"}), Context::default()));
    assert!(missing.is_error);
    assert_eq!(missing.output, expected("skill_not_found.txt"));
    // The raw JSON text a provider sends works too.
    let text = run(skills
        .tool()
        .execute_json(r#"{"name":"hello-world"}"#, Context::default()));
    assert!(
        text.output
            .starts_with("<skill_content name=\"hello-world\">")
    );
}

#[test]
fn without_described_skills_the_prompt_says_so_without_the_preamble() {
    let scratch = Scratch::new();
    assert_eq!(
        Skills::load(&scratch.0).skills_prompt(),
        "No skills are currently available."
    );
    scratch.write("quiet/SKILL.md", "---\nname: quiet\n---\nNo description.\n");
    let skills = Skills::load(&scratch.0);
    assert_eq!(skills.skills().len(), 1);
    assert_eq!(skills.skills_prompt(), "No skills are currently available.");
    let none = run(skills
        .tool()
        .execute(json!({"name": "x"}), Context::default()));
    assert_eq!(
        none.output,
        "Skill \"x\" not found. Available skills: quiet"
    );
}

#[test]
fn bad_skill_files_are_skipped_with_a_reason_naming_the_file_and_the_rest_load() {
    let scratch = Scratch::new();
    let nameless = scratch.write(
        "a-nameless/SKILL.md",
        "---\ndescription: no name\n---\nbody\n",
    );
    let broken = scratch.write("b-broken/SKILL.md", "---\nname: [unclosed\n---\nbody\n");
    scratch.write(
        "c-first/SKILL.md",
        "---\nname: dup\ndescription: first\n---\nfirst body\n",
    );
    let second = scratch.write(
        "d-second/SKILL.md",
        "---\nname: dup\ndescription: second\n---\nsecond\n",
    );
    let bare = scratch.write("e-bare/SKILL.md", "# no frontmatter at all\n");
    scratch.write(
        "f-good/SKILL.md",
        "---\nname: good\ndescription: fine\n---\nGood.\n",
    );
    let skills = Skills::load(&scratch.0);

    let names: Vec<&str> = skills.skills().iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["dup", "good"]);
    assert_eq!(
        skills.get("dup").unwrap().description.as_deref(),
        Some("first")
    );

    let skipped: Vec<(&Path, &SkipReason)> = skills
        .skipped()
        .iter()
        .map(|s| (s.location.as_path(), &s.reason))
        .collect();
    assert_eq!(skipped.len(), 4, "{skipped:?}");
    assert_eq!(skipped[0], (nameless.as_path(), &SkipReason::MissingName));
    assert_eq!(skipped[1].0, broken.as_path());
    assert!(matches!(skipped[1].1, SkipReason::MalformedFrontmatter(_)));
    assert_eq!(
        skipped[2],
        (second.as_path(), &SkipReason::DuplicateName("dup".into()))
    );
    assert_eq!(skipped[3], (bare.as_path(), &SkipReason::MissingName));
    // The warning names the file.
    let warning = skills.skipped()[0].to_string();
    assert!(
        warning.contains(&nameless.display().to_string()),
        "{warning}"
    );
    assert!(warning.contains("no `name`"), "{warning}");

    let missing_root = Skills::load(scratch.0.join("not-there"));
    assert!(missing_root.skills().is_empty());
    assert!(matches!(
        missing_root.skipped()[0].reason,
        SkipReason::Unreadable(_)
    ));
}

#[test]
fn frontmatter_is_real_yaml_and_values_are_trimmed_text() {
    let scratch = Scratch::new();
    scratch.write(
        "folded/SKILL.md",
        "---\nname: folded\ndescription: >\n  Folded over\n  two lines.\n---\nbody\n",
    );
    scratch.write(
        "literal/SKILL.md",
        "---\nname: \"literal\"\ndescription: |\n  line one\n  line two\n---\nbody\n",
    );
    scratch.write(
        "numeric/SKILL.md",
        "---\nname: 42\ndescription: 'quoted: colon'\n---\n",
    );
    let skills = Skills::load(&scratch.0);
    let description = |name: &str| skills.get(name).unwrap().description.clone().unwrap();
    assert_eq!(description("folded"), "Folded over two lines.");
    assert_eq!(description("literal"), "line one\nline two");
    assert_eq!(description("42"), "quoted: colon");
}

#[test]
fn discovery_follows_links_inside_its_folder_once_skips_dependencies_and_samples_ten_files() {
    let scratch = Scratch::new();
    let outside = Scratch::new();
    outside.write(
        "linked/SKILL.md",
        "---\nname: linked\ndescription: l\n---\nbody\n",
    );
    std::os::unix::fs::symlink(outside.0.join("linked"), scratch.0.join("via-link")).unwrap();
    // A link inside the folder is followed, and the skill found once.
    scratch.write("store/kept/SKILL.md", "---\nname: kept\n---\n");
    std::os::unix::fs::symlink(scratch.0.join("store/kept"), scratch.0.join("alias")).unwrap();
    // A cycle: the walk must end.
    std::os::unix::fs::symlink(&scratch.0, scratch.0.join("loop")).unwrap();
    scratch.write("node_modules/dep/SKILL.md", "---\nname: dependency\n---\n");
    scratch.write(".git/SKILL.md", "---\nname: git\n---\n");
    scratch.write(
        "many/SKILL.md",
        "---\nname: many\ndescription: m\n---\nMany files.\n",
    );
    for i in 0..12 {
        scratch.write(&format!("many/files/f{i:02}.txt"), "x");
    }
    let skills = Skills::load(&scratch.0);
    let mut names: Vec<&str> = skills.skills().iter().map(|s| s.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["kept", "many"]);
    // The link out of the folder is reported, not followed.
    let out: Vec<_> = skills
        .skipped()
        .iter()
        .filter(|s| matches!(s.reason, SkipReason::OutsideRoot(_)))
        .collect();
    assert_eq!(out.len(), 1, "{:?}", skills.skipped());
    assert_eq!(out[0].location, scratch.0.join("via-link"));
    assert_eq!(
        out[0].reason,
        SkipReason::OutsideRoot(fs::canonicalize(outside.0.join("linked")).unwrap())
    );
    assert!(
        out[0].to_string().contains("follow_links_outside(true)"),
        "{}",
        out[0]
    );

    let loaded = run(skills
        .tool()
        .execute(json!({"name": "many"}), Context::default()));
    let files: Vec<&str> = loaded
        .output
        .lines()
        .filter(|l| l.starts_with("<file>"))
        .collect();
    assert_eq!(files.len(), 10, "{}", loaded.output);
    assert!(
        files[0].ends_with("/many/files/f00.txt</file>"),
        "{files:?}"
    );
    assert!(!loaded.output.contains("SKILL.md</file>"));

    // `0` means the default, as in the Python port.
    let defaulted = run(skills
        .clone()
        .sample_limit(0)
        .tool()
        .execute(json!({"name": "many"}), Context::default()));
    assert_eq!(defaulted.output, loaded.output);
    let two = run(skills
        .clone()
        .sample_limit(2)
        .tool()
        .execute(json!({"name": "many"}), Context::default()));
    assert_eq!(two.output.matches("<file>").count(), 2, "{}", two.output);

    let unlisted = skills.without_file_list();
    let loaded = run(unlisted
        .tool()
        .execute(json!({"name": "many"}), Context::default()));
    assert!(
        !loaded.output.contains("<skill_files>"),
        "{}",
        loaded.output
    );
    assert!(
        loaded
            .output
            .ends_with("are relative to this base directory.\n</skill_content>")
    );
}

#[test]
fn several_roots_first_name_wins_across_them() {
    let first = Scratch::new();
    let second = Scratch::new();
    first.write(
        "s/SKILL.md",
        "---\nname: s\ndescription: from the first root\n---\n",
    );
    second.write(
        "s/SKILL.md",
        "---\nname: s\ndescription: from the second root\n---\n",
    );
    second.write(
        "t/SKILL.md",
        "---\nname: t\ndescription: only in the second\n---\n",
    );
    let skills = Skills::load_all([&first.0, &second.0]);
    assert_eq!(skills.skills().len(), 2);
    assert_eq!(
        skills.get("s").unwrap().description.as_deref(),
        Some("from the first root")
    );
    assert!(skills.skills_prompt().ends_with(
        "## Available Skills\n- **s**: from the first root\n- **t**: only in the second"
    ));
}

#[test]
fn links_out_of_the_folder_are_followed_only_when_asked() {
    let scratch = Scratch::new();
    let outside = Scratch::new();
    outside.write("linked/SKILL.md", "---\nname: linked\n---\nbody\n");
    outside.write("shared/secret.txt", "s");
    std::os::unix::fs::symlink(outside.0.join("linked"), scratch.0.join("via-link")).unwrap();
    // A `SKILL.md` that is itself a link out of the folder.
    fs::create_dir_all(scratch.0.join("file-link")).unwrap();
    std::os::unix::fs::symlink(
        outside.0.join("linked/SKILL.md"),
        scratch.0.join("file-link/SKILL.md"),
    )
    .unwrap();
    scratch.write("own/SKILL.md", "---\nname: own\n---\n");
    scratch.write("own/notes.txt", "n");
    std::os::unix::fs::symlink(outside.0.join("shared"), scratch.0.join("own/shared")).unwrap();
    let listed = |skills: &Skills| {
        let loaded = run(skills
            .tool()
            .execute(json!({"name": "own"}), Context::default()));
        loaded
            .output
            .lines()
            .filter(|l| l.starts_with("<file>"))
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };

    let inside = Skills::load(&scratch.0);
    let names: Vec<&str> = inside.skills().iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["own"]);
    let out: Vec<_> = inside
        .skipped()
        .iter()
        .filter(|s| matches!(s.reason, SkipReason::OutsideRoot(_)))
        .map(|s| s.location.clone())
        .collect();
    // In walk order: the root's entries, then its folders'.
    assert_eq!(
        out,
        [
            scratch.0.join("via-link"),
            scratch.0.join("file-link/SKILL.md"),
            scratch.0.join("own/shared"),
        ]
    );
    let files = listed(&inside);
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(files[0].ends_with("/own/notes.txt</file>"), "{files:?}");

    let anywhere = Skills::loader().follow_links_outside(true).load(&scratch.0);
    let mut names: Vec<&str> = anywhere.skills().iter().map(|s| s.name.as_str()).collect();
    names.sort_unstable();
    // The same skill through two links: the first one found wins.
    assert_eq!(names, ["linked", "own"]);
    assert!(
        anywhere
            .skipped()
            .iter()
            .all(|s| !matches!(s.reason, SkipReason::OutsideRoot(_)))
    );
    let files = listed(&anywhere);
    assert!(
        files
            .iter()
            .any(|f| f.ends_with("/own/shared/secret.txt</file>")),
        "{files:?}"
    );
}

#[test]
fn a_skill_file_over_the_size_limit_is_skipped() {
    let scratch = Scratch::new();
    let limit = usize::try_from(DEFAULT_MAX_SKILL_SIZE).unwrap();
    let header = "---\nname: at-limit\n---\n";
    scratch.write(
        "at-limit/SKILL.md",
        &format!("{header}{}", "x".repeat(limit - header.len())),
    );
    let huge = "---\nname: huge\n---\n";
    scratch.write("huge/SKILL.md", &format!("{huge}{}", "x".repeat(limit)));
    let skills = Skills::load(&scratch.0);
    let names: Vec<&str> = skills.skills().iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["at-limit"]);
    let skipped = &skills.skipped()[0];
    assert_eq!(skipped.location, scratch.0.join("huge/SKILL.md"));
    assert_eq!(
        skipped.reason,
        SkipReason::TooLarge {
            size: DEFAULT_MAX_SKILL_SIZE + huge.len() as u64,
            limit: DEFAULT_MAX_SKILL_SIZE
        }
    );
    assert!(skipped.to_string().contains("max_skill_size"), "{skipped}");

    let small = Skills::loader().max_skill_size(64).load(&scratch.0);
    assert!(small.skills().is_empty());
    assert_eq!(small.skipped().len(), 2);
}
