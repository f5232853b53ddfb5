use toolnexus::tool;

/// Save the chart's settings (called by the chart view only).
#[tool(ui_visibility = "view")]
fn save_settings(title: String) -> String {
    title
}

fn main() {}
