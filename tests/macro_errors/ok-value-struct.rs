use toolnexus::tool;

#[derive(serde::Serialize)]
struct Weather {
    celsius: f64,
}

/// Today's weather.
#[tool]
async fn weather(city: String) -> Result<Weather, String> {
    let _ = city;
    Ok(Weather { celsius: 21.5 })
}

fn main() {}
