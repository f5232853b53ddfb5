use toolnexus::tool;

/// Log a line.
#[tool]
fn log(line: String) {
    println!("{line}");
}

fn main() {}
