//! Every server scenario of the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`): its tools, resources and prompts, written as
//! ordinary `#[tool]`, `#[resource]` and `#[prompt]` functions and served over streamable
//! HTTP.
//!
//! ```text
//! cargo run --example conformance_server --features mcp -- 127.0.0.1:3001
//! cargo run --example conformance_server --features mcp -- 127.0.0.1:3001 --stateless
//! npx @modelcontextprotocol/conformance server --url http://127.0.0.1:3001/mcp
//! ```
//!
//! The first line on stdout is `listening on http://ADDR/mcp`; the server stops when stdin
//! closes. Each tool does what its scenario asks, through the crate's ordinary means:
//! content parts for images, audio and documents, [`Context::progress`] and
//! [`Context::log`] while it runs, [`Context::sample`] to ask the client's model, and a
//! [`Suspend`] carrying a JSON schema in its `data` to ask the user (which the server turns
//! into `elicitation/create`, or `input_required` for 2026-07-28 clients); the re-run
//! reads the user's reply in [`Context::answer`]. The resources are text, bytes and a
//! template; the prompts take arguments, embed a resource and show an image; completion
//! comes from `#[complete]`.

// A `Suspend` carries its whole `Request` (prompt, schema): returned as the `Err` of a
// tool, as the crate's contract has it, it is larger than clippy's default for errors.
#![allow(clippy::result_large_err)]

use std::convert::Infallible;
use std::io::Read as _;
use std::time::Duration;

use serde_json::{Value, json};
use toolnexus::mcp::{HttpOptions, McpServer};
use toolnexus::primitive::{PromptMessage, ResourceContents};
use toolnexus::tool::{LogLevel, Sampling};
use toolnexus::{
    Answer, ContentPart, Context, Json, Request, Suspend, Tool, ToolResult, Toolkit, prompt,
    prompts, resource, resources, tool,
};

/// A 1×1 PNG.
const PNG: &[u8] = include_bytes!("media/fixture.png");

/// Returns a simple text response.
#[tool]
fn test_simple_text() -> Result<&'static str, Infallible> {
    Ok("This is a simple text response for testing.")
}

/// Returns an image (a 1x1 PNG).
#[tool]
fn test_image_content() -> Result<ToolResult, toolnexus::tool::ContentError> {
    Ok(
        ToolResult::ok("A 1x1 PNG image.")
            .with_parts([ContentPart::image_bytes(PNG, "image/png")?]),
    )
}

/// A short WAV file: 8 kHz, 8-bit mono, 80 samples of silence.
fn wav() -> Vec<u8> {
    let samples = [128u8; 80];
    let mut wav = Vec::with_capacity(44 + samples.len());
    wav.extend_from_slice(b"RIFF");
    wav.extend_from_slice(&(36 + samples.len() as u32).to_le_bytes());
    wav.extend_from_slice(b"WAVEfmt ");
    wav.extend_from_slice(&16u32.to_le_bytes()); // fmt chunk size
    wav.extend_from_slice(&1u16.to_le_bytes()); // PCM
    wav.extend_from_slice(&1u16.to_le_bytes()); // mono
    wav.extend_from_slice(&8000u32.to_le_bytes()); // sample rate
    wav.extend_from_slice(&8000u32.to_le_bytes()); // byte rate
    wav.extend_from_slice(&1u16.to_le_bytes()); // block align
    wav.extend_from_slice(&8u16.to_le_bytes()); // bits per sample
    wav.extend_from_slice(b"data");
    wav.extend_from_slice(&(samples.len() as u32).to_le_bytes());
    wav.extend_from_slice(&samples);
    wav
}

/// Returns audio (a short WAV file).
#[tool]
fn test_audio_content() -> Result<ToolResult, toolnexus::tool::ContentError> {
    Ok(ToolResult::ok("A short WAV clip.")
        .with_parts([ContentPart::audio_bytes(wav(), "audio/wav")?]))
}

/// A one-page PDF, the document an embedded resource carries.
const PDF: &[u8] = b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n\
2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n\
3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 72 72]>>endobj\n\
trailer<</Root 1 0 R>>\n%%EOF\n";

/// Returns an embedded resource (a PDF document).
#[tool]
fn test_embedded_resource() -> Result<ToolResult, toolnexus::tool::ContentError> {
    Ok(ToolResult::ok("This is an embedded resource content.")
        .with_parts([ContentPart::file_bytes(PDF, "application/pdf")?]))
}

/// Returns text, an image and an embedded resource.
#[tool]
fn test_multiple_content_types() -> Result<ToolResult, toolnexus::tool::ContentError> {
    Ok(ToolResult::ok("Multiple content types test:").with_parts([
        ContentPart::image_bytes(PNG, "image/png")?,
        ContentPart::file_bytes(PDF, "application/pdf")?,
    ]))
}

/// Sends three log lines while it runs.
#[tool]
async fn test_tool_with_logging(ctx: &Context) -> Result<&'static str, Infallible> {
    ctx.log(LogLevel::Info, "Tool execution started");
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.log(LogLevel::Info, "Tool processing data");
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.log(LogLevel::Info, "Tool execution completed");
    Ok("Tool with logging executed successfully")
}

/// Reports progress 0, 50 and 100 of 100 while it runs.
#[tool]
async fn test_tool_with_progress(ctx: &Context) -> Result<&'static str, Infallible> {
    ctx.progress(0, 100.0, "starting");
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.progress(50, 100.0, "halfway");
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.progress(100, 100.0, "done");
    Ok("Tool with progress executed successfully")
}

/// Always fails.
#[tool]
fn test_error_handling() -> Result<String, String> {
    Err("This tool intentionally returns an error for testing".to_owned())
}

/// Asks the client's model.
#[tool]
async fn test_sampling(
    /// The prompt to send to the model.
    prompt: String,
    ctx: &Context,
) -> Result<String, toolnexus::tool::SamplingError> {
    let reply = ctx
        .sample(Sampling::new(prompt).with_max_tokens(100))
        .await?;
    Ok(format!("LLM response: {}", reply.text))
}

/// What the user answered, as the elicitation scenarios want it reported.
fn outcome(answer: &Answer) -> (String, String) {
    let action = if answer.ok {
        "accept".to_owned()
    } else {
        answer
            .reason
            .clone()
            .unwrap_or_else(|| "decline".to_owned())
    };
    let content = answer
        .data
        .clone()
        .unwrap_or(Value::Object(Default::default()));
    (action, content.to_string())
}

/// Asks the user for a form, or reports the answer on the re-run.
fn ask(ctx: &Context, message: String, schema: Value) -> Result<(String, String), Suspend> {
    match ctx.answer() {
        Some(answer) => Ok(outcome(answer)),
        None => Err(Suspend(Request::input(message).with_data(schema))),
    }
}

/// Asks the user for a username and an email address.
#[tool]
fn test_elicitation(
    /// The message to show the user.
    message: String,
    ctx: &Context,
) -> Result<String, Suspend> {
    let schema = json!({
        "type": "object",
        "properties": {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"}
        },
        "required": ["username", "email"]
    });
    let (action, content) = ask(ctx, message, schema)?;
    Ok(format!(
        "User response: <action: {action}, content: {content}>"
    ))
}

/// Asks the user for a form whose fields all have defaults (SEP-1034).
#[tool]
fn test_elicitation_sep1034_defaults(ctx: &Context) -> Result<String, Suspend> {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "description": "User age", "default": 30},
            "score": {"type": "number", "description": "User score", "default": 95.5},
            "status": {
                "type": "string",
                "description": "User status",
                "enum": ["active", "inactive", "pending"],
                "default": "active"
            },
            "verified": {"type": "boolean", "description": "Verified", "default": true}
        }
    });
    let (action, content) = ask(
        ctx,
        "Please review and update the form fields".into(),
        schema,
    )?;
    Ok(format!(
        "Elicitation completed: action={action}, content={content}"
    ))
}

/// Asks the user to pick from every kind of enum (SEP-1330).
#[tool]
fn test_elicitation_sep1330_enums(ctx: &Context) -> Result<String, Suspend> {
    let schema = json!({
        "type": "object",
        "properties": {
            "untitledSingle": {
                "type": "string",
                "description": "Untitled single-select",
                "enum": ["option1", "option2", "option3"]
            },
            "titledSingle": {
                "type": "string",
                "description": "Titled single-select",
                "oneOf": [
                    {"const": "value1", "title": "First Option"},
                    {"const": "value2", "title": "Second Option"},
                    {"const": "value3", "title": "Third Option"}
                ]
            },
            "legacyEnum": {
                "type": "string",
                "description": "Legacy titled enum",
                "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"]
            },
            "untitledMulti": {
                "type": "array",
                "description": "Untitled multi-select",
                "items": {"type": "string", "enum": ["option1", "option2", "option3"]}
            },
            "titledMulti": {
                "type": "array",
                "description": "Titled multi-select",
                "items": {
                    "anyOf": [
                        {"const": "value1", "title": "First Choice"},
                        {"const": "value2", "title": "Second Choice"},
                        {"const": "value3", "title": "Third Choice"}
                    ]
                }
            }
        }
    });
    let (action, content) = ask(ctx, "Please select options".into(), schema)?;
    Ok(format!(
        "Elicitation completed: action={action}, content={content}"
    ))
}

/// Takes a moment, for the suite's SSE polling scenario.
#[tool]
async fn test_reconnection() -> Result<&'static str, Infallible> {
    tokio::time::sleep(Duration::from_millis(100)).await;
    Ok("Reconnection test completed")
}

/// A tool whose input schema uses JSON Schema 2020-12 keywords (`$schema`, `$defs`,
/// `$ref`): written by hand, as a schema from elsewhere would be.
fn json_schema_2020_12_tool() -> Tool {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "type": "object",
                "properties": {
                    "street": {"type": "string"},
                    "city": {"type": "string"}
                }
            }
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"}
        },
        "additionalProperties": false
    });
    Tool::new_sync(
        "json_schema_2020_12_tool",
        "Tool with JSON Schema 2020-12 features",
        schema,
        |args, _| ToolResult::ok(format!("Received: {args}")),
    )
}

/// Every tool of the conformance scenarios.
fn toolkit() -> Toolkit {
    toolnexus::tools![
        test_simple_text,
        test_image_content,
        test_audio_content,
        test_embedded_resource,
        test_multiple_content_types,
        test_tool_with_logging,
        test_tool_with_progress,
        test_error_handling,
        test_sampling,
        test_elicitation,
        test_elicitation_sep1034_defaults,
        test_elicitation_sep1330_enums,
        test_reconnection,
    ]
    .into_iter()
    .chain([json_schema_2020_12_tool()])
    .collect()
}

/// A static text resource.
#[resource(
    uri = "test://static-text",
    name = "static-text",
    mime_type = "text/plain"
)]
fn static_text() -> &'static str {
    "This is the content of the static text resource."
}

/// A static binary resource (a 1x1 PNG).
#[resource(uri = "test://static-binary", name = "static-binary")]
fn static_binary() -> Result<ContentPart, toolnexus::tool::ContentError> {
    ContentPart::image_bytes(PNG, "image/png")
}

/// Data for one id, from a URI template.
#[resource(
    uri = "test://template/{id}/data",
    name = "template-data",
    mime_type = "application/json"
)]
fn template_data(
    /// The id the data is for.
    #[complete(values = ["123", "456"])]
    id: String,
) -> Json<Value> {
    Json(json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")}))
}

/// A resource clients subscribe to.
#[resource(uri = "test://watched-resource", name = "watched-resource")]
fn watched_resource() -> &'static str {
    "Watched resource content"
}

/// A simple prompt without arguments.
#[prompt]
fn test_simple_prompt() -> &'static str {
    "This is a simple prompt for testing."
}

/// A prompt with two arguments.
#[prompt]
fn test_prompt_with_arguments(
    /// First test argument.
    #[complete(values = ["paris", "park", "party"])]
    arg1: String,
    /// Second test argument.
    arg2: String,
) -> String {
    format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
}

/// A prompt that embeds a resource.
#[prompt]
fn test_prompt_with_embedded_resource(
    /// URI of the resource to embed.
    #[serde(rename = "resourceUri")]
    resource_uri: String,
) -> Vec<PromptMessage> {
    vec![
        PromptMessage::user(
            ResourceContents::text("Embedded resource content for testing.")
                .with_uri(resource_uri)
                .with_mime_type("text/plain"),
        ),
        PromptMessage::user("Please process the embedded resource above."),
    ]
}

/// A prompt with an image.
#[prompt]
fn test_prompt_with_image() -> Result<Vec<PromptMessage>, toolnexus::tool::ContentError> {
    Ok(vec![
        PromptMessage::user(ContentPart::image_bytes(PNG, "image/png")?),
        PromptMessage::user("Please analyze the image above."),
    ])
}

fn usage() -> ! {
    eprintln!("usage: conformance_server ADDR [--stateless]");
    std::process::exit(2);
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let addr = args.next().unwrap_or_else(|| usage());
    let mut options = HttpOptions::new();
    for flag in args {
        match flag.as_str() {
            "--stateless" => options = options.stateless(),
            _ => usage(),
        }
    }
    let server = McpServer::new(toolkit())
        .name("toolnexus-conformance")
        .resources(resources![
            static_text,
            static_binary,
            template_data,
            watched_resource
        ])
        .prompts(prompts![
            test_simple_prompt,
            test_prompt_with_arguments,
            test_prompt_with_embedded_resource,
            test_prompt_with_image,
        ]);
    let http = server.serve_http_with(addr.as_str(), options).await?;
    println!("listening on {}", http.url());
    // Stops when stdin closes (the test that started it went away).
    tokio::task::spawn_blocking(|| {
        let _ = std::io::stdin().read_to_end(&mut Vec::new());
    })
    .await
    .ok();
    http.shutdown().await
}
