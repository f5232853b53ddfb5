use toolnexus::{tool, Context};

/// Report the call id.
#[tool]
fn whoami(ctx: &Context, again: &Context) -> Result<String, std::convert::Infallible> {
    Ok(format!("{:?} {:?}", ctx.call_id(), again.call_id()))
}

fn main() {}
