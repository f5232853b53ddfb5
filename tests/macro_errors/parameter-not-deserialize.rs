use toolnexus::tool;

struct Point {
    x: f64,
    y: f64,
}

/// Distance from the origin.
#[tool]
fn norm(point: Point) -> Result<f64, std::convert::Infallible> {
    Ok((point.x * point.x + point.y * point.y).sqrt())
}

fn main() {}
