//! Compile-time behaviour of `#[tool]`, `#[resource]` and `#[prompt]`: every misuse is a
//! compile error on the user's own tokens (one `tests/macro_errors/<misuse>.rs` with its expected
//! `.stderr` each), and every accepted form compiles and runs (`tests/macro_errors/pass/*.rs`).
//!
//! After changing a diagnostic, regenerate the expected output with
//! `TRYBUILD=overwrite cargo test -p toolnexus-macro-errors` and read every changed `.stderr`.

#[test]
fn macro_errors() {
    let t = trybuild::TestCases::new();
    t.pass("pass/*.rs");
    t.compile_fail("*.rs");
}
