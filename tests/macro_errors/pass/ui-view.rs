//! `ui` and `ui_visibility` put the tool's MCP Apps view and visibility in its `_meta.ui`.
use toolnexus::tool;

/// Draw a chart of the numbers.
#[tool(ui = "ui://charts/view.html")]
fn chart(numbers: Vec<f64>) -> Result<String, String> {
    Ok(format!("{} points", numbers.len()))
}

/// Save the chart's settings (called by the chart view only).
#[tool(ui_visibility = "app")]
fn save_settings(title: String) -> Result<String, String> {
    Ok(title)
}

fn main() {
    let ui = chart::tool().ui().cloned().unwrap();
    assert_eq!(ui.resource_uri.as_deref(), Some("ui://charts/view.html"));
    assert!(ui.visibility.is_empty());
    let ui = save_settings::tool().ui().cloned().unwrap();
    assert_eq!(ui.resource_uri, None);
    assert_eq!(ui.visibility, ["app"]);
    assert_eq!(chart(vec![1.0, 2.0]), Ok("2 points".to_owned()));
}
