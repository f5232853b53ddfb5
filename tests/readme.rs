//! README.md and the guide's chapters (`toolnexus/docs/guide/*.md`, the modules of
//! `toolnexus::_guide`) render as written: every code fence they open is closed, so no
//! section after a slip shows up as code. (Their Rust blocks are compiled and run as doc
//! tests of `toolnexus`.) The README stays a front page: short, linking every chapter and
//! every example, and each example says at its top what it shows and how to run it.

use std::fs;
use std::path::{Path, PathBuf};

const README: &str = include_str!("../README.md");
const GUIDE_MODULE: &str = include_str!("../toolnexus/src/_guide/mod.rs");

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every file of `dir` whose name ends in `.ext`, sorted.
fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == ext))
        .collect();
    found.sort();
    found
}

fn chapters() -> Vec<(String, String)> {
    let chapters: Vec<(String, String)> = files(&repo().join("toolnexus/docs/guide"), "md")
        .into_iter()
        .map(|path| {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            let text =
                fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (name, text)
        })
        .collect();
    assert!(
        chapters.len() >= 5,
        "the guide has too few chapters: {chapters:?}"
    );
    chapters
}

/// The line of each fence that opens a block and is never closed, or that a fence with an
/// info string (an opening fence) interrupts.
fn unclosed_fences(markdown: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let mut open: Option<(usize, usize)> = None; // (line, fence length)
    for (index, line) in markdown.lines().enumerate() {
        let number = index + 1;
        let indent = line.len() - line.trim_start_matches(' ').len();
        let rest = &line[indent..];
        let ticks = rest.len() - rest.trim_start_matches('`').len();
        if indent > 3 || ticks < 3 {
            continue;
        }
        let info = rest[ticks..].trim();
        match open {
            None => open = Some((number, ticks)),
            Some((_, length)) if info.is_empty() && ticks >= length => open = None,
            Some((at, _)) if !info.is_empty() => problems.push(format!(
                "the fence opened at line {at} is not closed before the `{info}` fence at line {number}"
            )),
            Some(_) => {}
        }
    }
    if let Some((at, _)) = open {
        problems.push(format!("the fence opened at line {at} is never closed"));
    }
    problems
}

#[test]
fn every_code_fence_in_the_readme_closes() {
    assert_eq!(unclosed_fences(README), Vec::<String>::new());
}

#[test]
fn every_code_fence_in_the_guide_closes() {
    for (name, text) in chapters() {
        assert_eq!(
            unclosed_fences(&text),
            Vec::<String>::new(),
            "chapter {name}.md"
        );
    }
}

/// The images a chapter embeds (`![alt](img/NAME.png)`): each a PNG of
/// `toolnexus/docs/guide/img/` small enough for the repository (at most 150 KB), with
/// alternative text. (On docs.rs the relative path shows the alt text.)
#[test]
fn every_figure_of_the_guide_is_there_and_small() {
    let mut figures = 0;
    for (name, text) in chapters() {
        for (alt, target) in images(&text) {
            figures += 1;
            assert!(
                !alt.trim().is_empty(),
                "{name}.md: {target} has no alt text"
            );
            assert!(
                target.starts_with("img/") && target.ends_with(".png") && !target.contains(".."),
                "{name}.md: {target} is not a PNG of docs/guide/img/"
            );
            let path = repo().join("toolnexus/docs/guide").join(&target);
            let bytes =
                fs::read(&path).unwrap_or_else(|e| panic!("{name}.md embeds {target}: {e}"));
            assert!(bytes.starts_with(b"\x89PNG"), "{target} is not a PNG");
            assert!(
                bytes.len() <= 150 * 1024,
                "{target} has {} bytes; keep a figure under 150 KB",
                bytes.len()
            );
        }
    }
    assert!(figures >= 3, "the guide embeds {figures} figures");
}

/// The `(alt, target)` of every `![alt](target)` of `markdown` (on one line, not after
/// a word: `vec![…]` is no image).
fn images(markdown: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for line in markdown.lines() {
        let mut from = 0;
        while let Some(at) = line[from..].find("![").map(|at| from + at) {
            from = at + 2;
            if line[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let Some((alt, after)) = line[from..].split_once(']') else {
                break;
            };
            let Some(target) = after.strip_prefix('(').and_then(|t| t.split_once(')')) else {
                continue;
            };
            found.push((alt.to_owned(), target.0.to_owned()));
        }
    }
    found
}

#[test]
fn the_figure_check_reads_an_image_link() {
    assert_eq!(
        images("a ![The view](img/v.png) and ![](x.png).\nlet v = vec![1](2);"),
        [
            ("The view".to_owned(), "img/v.png".to_owned()),
            (String::new(), "x.png".to_owned())
        ]
    );
}

/// A chapter left out of `toolnexus::_guide` would neither show on docs.rs nor have its
/// examples run; a chapter the README does not link is one a reader does not find.
#[test]
fn every_chapter_is_a_guide_module_and_linked_from_the_readme() {
    for (name, _) in chapters() {
        let include =
            format!("#[doc = include_str!(\"../../docs/guide/{name}.md\")]\npub mod {name} {{}}");
        assert!(
            GUIDE_MODULE.contains(&include),
            "toolnexus/src/_guide/mod.rs lacks:\n{include}"
        );
        for link in [
            format!("(toolnexus/docs/guide/{name}.md)"),
            format!("(https://docs.rs/toolnexus/latest/toolnexus/_guide/{name}/index.html)"),
        ] {
            assert!(README.contains(&link), "README.md does not link {link}");
        }
    }
}

#[test]
fn the_readme_is_a_front_page() {
    let lines = README.lines().count();
    assert!(
        lines <= 250,
        "README.md has {lines} lines; the manual belongs in the guide"
    );
}

/// Each example opens with what it shows and the exact command that runs it, and the
/// README links it.
#[test]
fn every_example_says_what_it_shows_and_how_to_run_it() {
    for path in files(&repo().join("examples"), "rs") {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let header: Vec<&str> = text.lines().take_while(|l| l.starts_with("//!")).collect();
        assert!(
            header.first().is_some_and(|l| l.len() > "//! ".len()),
            "examples/{name}.rs does not open with a `//!` line saying what it shows"
        );
        let command = format!("cargo run --example {name}");
        let runs = header.iter().find(|l| l.contains(&command));
        let runs =
            runs.unwrap_or_else(|| panic!("examples/{name}.rs: its header lacks `{command}`"));
        // An example with required features names them in its command.
        let manifest = include_str!("../examples/Cargo.toml");
        let entry = manifest
            .split("[[example]]")
            .find(|e| e.contains(&format!("name = \"{name}\"")))
            .unwrap_or_else(|| panic!("examples/Cargo.toml has no [[example]] {name}"));
        if let Some(features) = entry.lines().find(|l| l.starts_with("required-features")) {
            let feature = features.split('"').nth(1).expect("a required feature");
            assert!(
                runs.contains(&format!("--features {feature}")),
                "examples/{name}.rs: `{}` lacks `--features {feature}`",
                runs.trim_start_matches("//!").trim()
            );
        }
        let link = format!("(examples/{name}.rs)");
        assert!(README.contains(&link), "README.md does not link {link}");
    }
}

#[test]
fn the_check_finds_a_fence_left_open() {
    let slip = "text\n```sh\ncargo run\n\n## Next\n```rust\nfn main() {}\n```\n";
    assert_eq!(
        unclosed_fences(slip),
        ["the fence opened at line 2 is not closed before the `rust` fence at line 6"]
    );
    assert_eq!(
        unclosed_fences("```sh\nls\n"),
        ["the fence opened at line 1 is never closed"]
    );
    assert!(unclosed_fences("```sh\nls\n```\n").is_empty());
}

#[test]
fn the_readme_opens_with_the_quickstart_and_the_test_command() {
    let head: String = README.lines().take(15).collect::<Vec<_>>().join("\n");
    assert!(head.contains("cargo run --example quickstart"), "{head}");
    assert!(head.contains("bash .ci/test"), "{head}");
}
