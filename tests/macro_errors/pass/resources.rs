// Every accepted `#[resource]` form, and what a read of each gives.
use std::sync::atomic::{AtomicU32, Ordering};

use toolnexus::{resource, resources, Context, ContentPart, Json, State};
use toolnexus::primitive::{Resource, ResourceContents, ResourceError};

/// A fixed URI, text.
#[resource(uri = "docs://readme", mime_type = "text/markdown")]
fn readme() -> &'static str {
    "# Readme"
}

/// A template, async, a number read from the URI, `Json`.
#[resource(uri = "users://{id}/profile", name = "profile", title = "User profile")]
async fn profile(id: u32) -> Result<Json<serde_json::Value>, ResourceError> {
    if id == 0 {
        return Err(ResourceError::not_found("users://0/profile"));
    }
    Ok(Json(serde_json::json!({"id": id})))
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Size {
    Small,
    Large,
}

fn sizes(request: &toolnexus::primitive::CompletionRequest) -> Vec<&'static str> {
    ["small", "large"]
        .into_iter()
        .filter(|s| s.starts_with(&request.value))
        .collect()
}

/// Bytes, an enum variable, two variables, a completion function, a context.
#[resource(uri = "images://{name}/{size}")]
fn image(
    #[complete(values = ["logo", "banner"])] name: String,
    #[complete(with = sizes)] size: Size,
    ctx: &Context,
) -> Vec<u8> {
    let _ = (name, ctx);
    match size {
        Size::Small => vec![1],
        Size::Large => vec![1, 2],
    }
}

struct Hits(AtomicU32);

/// State, and several contents.
#[resource(uri = "stats://hits")]
fn hits(counter: State<Hits>) -> Vec<ResourceContents> {
    let n = counter.0.fetch_add(1, Ordering::Relaxed);
    vec![
        ResourceContents::text(n.to_string()),
        ResourceContents::text("a second part").with_uri("stats://hits/note"),
    ]
}

/// A content part, with `?`.
#[resource(uri = "images://pixel")]
fn pixel() -> Result<ContentPart, toolnexus::tool::ContentError> {
    ContentPart::image_bytes(b"GIF89a\x01\x00\x01\x00\x00\x00\x00;".to_vec(), "image/gif")
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    // The functions stay ordinary functions.
    assert_eq!(readme(), "# Readme");
    assert!(rt.block_on(profile(3)).is_ok());

    let all: Vec<Resource> = resources![readme, profile, image, hits, pixel];
    assert_eq!(all.len(), 5);
    assert_eq!(Resource::registered().len(), 5);
    let read = |resource: &Resource, uri: &str, ctx: Context| rt.block_on(resource.read(uri, ctx));

    let text = read(&readme::resource(), "docs://readme", Context::default()).unwrap();
    assert_eq!(text[0].mime_type(), Some("text/markdown"));

    let profile = profile::resource();
    assert_eq!((profile.name(), profile.title()), ("profile", Some("User profile")));
    let json = read(&profile, "users://7/profile", Context::default()).unwrap();
    assert_eq!(json[0].as_text(), Some(r#"{"id":7}"#));
    assert!(matches!(
        read(&profile, "users://0/profile", Context::default()),
        Err(ResourceError::NotFound { .. })
    ));
    assert!(matches!(
        read(&profile, "users://seven/profile", Context::default()),
        Err(ResourceError::InvalidParams { .. })
    ));

    let image = image::resource();
    let bytes = read(&image, "images://logo/large", Context::default()).unwrap();
    assert_eq!(bytes[0].as_bytes(), Some(&[1u8, 2][..]));
    let request = toolnexus::primitive::CompletionRequest::new("name", "l");
    assert_eq!(image.complete(&request).values, ["logo"]);
    let request = toolnexus::primitive::CompletionRequest::new("size", "s");
    assert_eq!(image.complete(&request).values, ["small"]);

    let ctx = Context::new().with_state(Hits(AtomicU32::new(5)));
    let two = read(&hits::resource(), "stats://hits", ctx).unwrap();
    assert_eq!(two[0].as_text(), Some("5"));
    assert_eq!(two[1].uri(), "stats://hits/note");
    let missing = read(&hits::resource(), "stats://hits", Context::default());
    assert!(missing.unwrap_err().to_string().contains("Hits"));

    let gif = read(&pixel::resource(), "images://pixel", Context::default()).unwrap();
    assert_eq!(gif[0].mime_type(), Some("image/gif"));
}
