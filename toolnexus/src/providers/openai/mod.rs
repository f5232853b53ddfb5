//! OpenAI's two APIs: [`OpenAi`] (Chat Completions, and every OpenAI-compatible server)
//! and [`OpenAiResponses`] (the Responses API), the checks they share, and
//! [`AzureOpenAi`], either of them on Azure.

mod azure;
mod chat;
mod chunk;
mod family;
mod responses;

pub use azure::AzureOpenAi;
pub use chat::OpenAi;
pub use responses::OpenAiResponses;
