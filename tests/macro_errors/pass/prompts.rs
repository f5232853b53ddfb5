// Every accepted `#[prompt]` form, and what a get of each gives.
use toolnexus::{prompt, prompts, Context, ContentPart};
use toolnexus::primitive::{Prompt, PromptError, PromptMessage, PromptReply, ResourceContents};

/// Text: one user message.
#[prompt]
fn simple() -> &'static str {
    "This is a simple prompt."
}

/// Two arguments, one optional, async.
#[prompt(name = "with_args", title = "With arguments")]
async fn with_args(
    /// The first.
    arg1: String,
    /// The second, optional.
    arg2: Option<u32>,
) -> String {
    format!("arg1={arg1} arg2={arg2:?}")
}

/// An image and an embedded resource.
#[prompt]
fn media(uri: String) -> Result<Vec<PromptMessage>, toolnexus::tool::ContentError> {
    let gif = ContentPart::image_bytes(b"GIF89a\x01\x00\x01\x00\x00\x00\x00;".to_vec(), "image/gif")?;
    Ok(vec![
        PromptMessage::user(gif),
        PromptMessage::user(ResourceContents::text("embedded").with_uri(uri)),
        PromptMessage::assistant("Noted."),
    ])
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Topic {
    /// What to write about.
    subject: String,
}

/// The whole argument object as one struct, and a reply with a description.
#[prompt]
fn essay(#[args] topic: Topic) -> Result<PromptReply, PromptError> {
    if topic.subject.is_empty() {
        return Err(PromptError::invalid_arguments("an empty subject"));
    }
    Ok(PromptReply::new([PromptMessage::user(format!("Write about {}.", topic.subject))])
        .with_description(format!("An essay on {}", topic.subject)))
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    assert_eq!(simple(), "This is a simple prompt.");

    let all: Vec<Prompt> = prompts![simple, with_args, media, essay];
    assert_eq!(all.len(), 4);
    assert_eq!(Prompt::registered().len(), 4);
    let get = |prompt: &Prompt, args: &[(&str, &str)]| {
        rt.block_on(prompt.get(args.iter().copied(), Context::default()))
    };

    let reply = get(&simple::prompt(), &[]).unwrap();
    assert_eq!(reply.messages[0].text(), Some("This is a simple prompt."));

    let with_args = with_args::prompt();
    assert_eq!(with_args.title(), Some("With arguments"));
    let arguments = with_args.arguments();
    assert_eq!(arguments[1].description.as_deref(), Some("The second, optional."));
    assert!(arguments[0].required && !arguments[1].required);
    let reply = get(&with_args, &[("arg1", "a"), ("arg2", "7")]).unwrap();
    assert_eq!(reply.messages[0].text(), Some("arg1=a arg2=Some(7)"));
    let reply = get(&with_args, &[("arg1", "a"), ("arg2", "")]).unwrap();
    assert_eq!(reply.messages[0].text(), Some("arg1=a arg2=None"));
    assert!(matches!(get(&with_args, &[("arg2", "7")]), Err(PromptError::InvalidArguments { .. })));
    assert!(matches!(
        get(&with_args, &[("arg1", "a"), ("arg2", "x")]),
        Err(PromptError::InvalidArguments { .. })
    ));

    let reply = get(&media::prompt(), &[("uri", "test://r")]).unwrap();
    assert_eq!(reply.messages.len(), 3);

    let reply = get(&essay::prompt(), &[("subject", "rust")]).unwrap();
    assert_eq!(reply.description.as_deref(), Some("An essay on rust"));
    assert_eq!(essay::prompt().arguments()[0].name, "subject");
}
