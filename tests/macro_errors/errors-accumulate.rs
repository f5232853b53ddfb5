use toolnexus::{tool, Context};

/// Everything wrong at once: every problem is reported in one build.
#[tool(nmae = "x", name = "bad name")]
fn everything<T>((a, b): (i64, i64), text: &str, ctx: &Context, again: Context) -> Result<i64, String> {
    let _ = (text, ctx, again);
    Ok(a + b)
}

fn main() {}
