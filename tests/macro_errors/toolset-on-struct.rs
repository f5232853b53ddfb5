use toolnexus::toolset;

#[toolset]
struct Github {
    token: String,
}

fn main() {}
