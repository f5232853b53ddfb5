//! Compile-time behaviour of `#[tool]`: every misuse is a compile error on the user's
//! own tokens (one `tests/ui/<misuse>.rs` with its expected `.stderr` each), and every
//! accepted form compiles and runs (`tests/ui/pass/*.rs`).
//!
//! After changing a diagnostic, regenerate the expected output with
//! `TRYBUILD=overwrite cargo test --test ui` and read every changed `.stderr`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass/*.rs");
    t.compile_fail("tests/ui/*.rs");
}
