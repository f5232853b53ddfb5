use toolnexus::{tool, Json};

struct Hit {
    id: u32,
}

/// Find the hits.
#[tool]
fn find(query: String) -> Result<Json<Vec<Hit>>, String> {
    Ok(Json(vec![Hit { id: query.len() as u32 }]))
}

fn main() {}
