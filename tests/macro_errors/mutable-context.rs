use toolnexus::{tool, Context};

/// Report the call id.
#[tool]
fn whoami(ctx: &mut Context) -> Result<String, std::convert::Infallible> {
    Ok(format!("{:?}", ctx.call_id()))
}

fn main() {}
