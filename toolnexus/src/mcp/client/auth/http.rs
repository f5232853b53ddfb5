//! A request of a connection with a login: sent through the SDK's authorizing client
//! with the current token, and when the server answers `401` or `403
//! insufficient_scope`, logged in (or stepped up) and sent again. The streamable-HTTP
//! client that sends it is `opening.rs`'s.

use rmcp::transport::streamable_http_client::StreamableHttpError;

use super::flow::Login;

type HttpError = StreamableHttpError<reqwest::Error>;

/// How many logins one request may go through (a login, then step-ups).
const MAX_LOGINS_PER_REQUEST: u32 = 2;

/// Sends `call` with `login`'s current token; on a challenge, logs in (a tool call's
/// login may suspend the call, see `flow.rs`) and sends it again.
pub(crate) async fn send<T, F, Fut>(login: &Login, tool_call: bool, call: F) -> Result<T, HttpError>
where
    F: Fn(Option<String>) -> Fut,
    Fut: Future<Output = Result<T, HttpError>>,
{
    let mut logins = 0;
    let mut step_ups = 0;
    loop {
        let token = login.token().await;
        match call(token.clone()).await {
            Err(StreamableHttpError::AuthRequired(challenge))
                if logins < MAX_LOGINS_PER_REQUEST =>
            {
                logins += 1;
                login
                    .authorize(
                        &challenge.www_authenticate_header,
                        token.as_deref(),
                        tool_call,
                    )
                    .await?;
            }
            Err(StreamableHttpError::InsufficientScope(challenge))
                if step_ups < login.max_step_ups() =>
            {
                step_ups += 1;
                login
                    .step_up(
                        &challenge.www_authenticate_header,
                        token.as_deref(),
                        tool_call,
                    )
                    .await?;
            }
            other => return other,
        }
    }
}
