//! The tools the examples share: plain functions turned into tools by `#[tool]`.

use std::convert::Infallible;

use toolnexus::{ContentPart, Context, Suspend, ToolResult, tool};

/// Add two numbers.
#[tool]
pub fn add(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> Result<i64, Infallible> {
    Ok(a + b)
}

/// Divide `a` by `b`.
#[tool]
pub fn divide(
    /// The dividend.
    a: f64,
    /// The divisor; must not be zero.
    b: f64,
) -> Result<f64, String> {
    if b == 0.0 {
        return Err("cannot divide by zero".into());
    }
    Ok(a / b)
}

/// Deploy the service; asks which environment when none is given.
#[tool(name = "deploy_service")]
pub async fn deploy(
    /// The environment to deploy to (`staging` or `production`).
    env: Option<String>,
    ctx: &Context,
) -> Result<String, Suspend> {
    // On the re-run after a suspension, the host's answer is in the context.
    let answered = ctx.answer().and_then(|a| a.text()).map(str::to_owned);
    match env.or(answered) {
        Some(env) => Ok(format!("deployed to {env}")),
        None => Err(Suspend::input("Which environment?")),
    }
}

/// Take a screenshot of the current screen.
#[tool]
pub fn screenshot() -> ToolResult {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/media/fixture.png");
    match ContentPart::image(path) {
        // The model still reads a sentence; the image rides in `parts`.
        Ok(part) => ToolResult::ok(part.summary()).with_parts([part]),
        Err(e) => ToolResult::error(format!("screenshot: {e}")),
    }
}
