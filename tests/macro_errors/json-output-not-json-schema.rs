// A `Json<T>` return gives the tool an output schema, so `T` must describe itself:
// `Serialize` alone is not enough.
use toolnexus::{tool, Json};

#[derive(serde::Serialize)]
struct Hit {
    id: u32,
}

/// Search.
#[tool]
fn search() -> Result<Json<Vec<Hit>>, String> {
    Ok(Json(vec![Hit { id: 1 }]))
}

fn main() {}
