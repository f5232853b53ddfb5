use std::rc::Rc;

use toolnexus::tool;

async fn yield_now() {}

/// Count up, holding an `Rc` across an await.
#[tool]
async fn count(n: u64) -> Result<u64, std::convert::Infallible> {
    let shared = Rc::new(n);
    yield_now().await;
    Ok(*shared + 1)
}

fn main() {}
