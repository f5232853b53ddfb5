use toolnexus::{tool, tools};

/// Say hello.
#[tool]
fn hello(name: String) -> Result<String, String> {
    Ok(format!("hello {name}"))
}

fn helper(x: i64) -> i64 {
    x * 2
}

fn main() {
    let _ = helper(1);
    let _ = tools![hello, helper];
}
