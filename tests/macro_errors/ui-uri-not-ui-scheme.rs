use toolnexus::tool;

/// Draw a chart of the numbers.
#[tool(ui = "https://charts.example/view.html")]
fn chart(numbers: Vec<f64>) -> String {
    format!("{} points", numbers.len())
}

fn main() {}
