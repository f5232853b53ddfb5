//! README.md renders as written: every code fence it opens is closed, so no section after
//! a slip shows up as code. (Its Rust blocks are compiled as doc tests of `toolnexus`.)

const README: &str = include_str!("../README.md");

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
