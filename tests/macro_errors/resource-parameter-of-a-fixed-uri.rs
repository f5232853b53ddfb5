use toolnexus::resource;

/// Today's weather.
#[resource(uri = "weather://today")]
fn weather(city: String) -> String {
    format!("sunny in {city}")
}

fn main() {}
