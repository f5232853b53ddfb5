//! The `Agent` object's client through Restate's HTTP ingress: start a run, list what a
//! conversation's run waits on, answer it.

use std::fmt;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::agent::run::RunResult;
use crate::tool::request::{Answer, Request};

/// What went wrong talking to the ingress, and where.
#[derive(Debug, thiserror::Error)]
#[error("{what}: {message}")]
pub struct IngressError {
    what: String,
    message: String,
}

impl IngressError {
    fn new(what: &str, message: impl fmt::Display) -> Self {
        IngressError {
            what: what.to_owned(),
            message: message.to_string(),
        }
    }
}

/// A conversation's run waiting on an answer ([`Ingress::waiting`]): the Restate
/// invocation that runs it, and the run as it was when it halted (its
/// [`pending`](RunResult::pending) request, the calls made so far).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Waiting {
    /// Restate's id of the invocation, to [`attach`](Ingress::attach) to.
    pub invocation: String,
    /// The run when it halted.
    pub run: RunResult,
}

/// A client of the `Agent` object through a Restate server's ingress
/// (`http://127.0.0.1:8080` by default on a local server).
#[derive(Clone, Debug)]
pub struct Ingress {
    url: String,
    http: reqwest::Client,
}

impl Ingress {
    /// The ingress at `url`.
    pub fn new(url: impl Into<String>) -> Self {
        Ingress {
            url: url.into().trim_end_matches('/').to_owned(),
            http: reqwest::Client::new(),
        }
    }

    /// Runs `prompt` on conversation `conversation` and waits for the run's end
    /// (a run that suspends ends once its requests are answered).
    pub async fn run(&self, conversation: &str, prompt: &str) -> Result<RunResult, IngressError> {
        let what = format!("running on conversation `{conversation}`");
        self.call(&what, conversation, "run", json!(prompt)).await
    }

    /// Starts a run of `prompt` on conversation `conversation` without waiting for it;
    /// `key`, when given, is the idempotency key (the same key starts one run). Gives
    /// back Restate's invocation id.
    pub async fn send(
        &self,
        conversation: &str,
        prompt: &str,
        key: Option<&str>,
    ) -> Result<String, IngressError> {
        let what = format!("starting a run on conversation `{conversation}`");
        let url = format!("{}/Agent/{}/run/send", self.url, segment(conversation));
        let mut request = json_body(self.http.post(&url), &json!(prompt));
        if let Some(key) = key {
            request = request.header("idempotency-key", key);
        }
        let sent: Value = read(&what, request.send().await).await?;
        sent.get("invocationId")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| IngressError::new(&what, format!("no invocation id in {sent}")))
    }

    /// Waits for the end of invocation `invocation` (an id [`send`](Ingress::send) gave)
    /// and gives back its run.
    pub async fn attach(&self, invocation: &str) -> Result<RunResult, IngressError> {
        let what = format!("waiting for invocation `{invocation}`");
        let url = format!(
            "{}/restate/invocation/{}/attach",
            self.url,
            segment(invocation)
        );
        read(&what, self.http.get(&url).send().await).await
    }

    /// The requests the run of conversation `conversation` waits on.
    pub async fn pending(&self, conversation: &str) -> Result<Vec<Request>, IngressError> {
        let what = format!("listing the requests of conversation `{conversation}`");
        self.call(&what, conversation, "pending", Value::Null).await
    }

    /// The run of conversation `conversation` waiting on an answer, if one does.
    pub async fn waiting(&self, conversation: &str) -> Result<Option<Waiting>, IngressError> {
        let what = format!("reading the waiting run of conversation `{conversation}`");
        self.call(&what, conversation, "waiting", Value::Null).await
    }

    /// Answers request `answer.id` of conversation `conversation`'s run, which resumes:
    /// `false` when the run waits on no such request.
    pub async fn answer(&self, conversation: &str, answer: &Answer) -> Result<bool, IngressError> {
        let what = format!("answering `{}` on conversation `{conversation}`", answer.id);
        let body = serde_json::to_value(answer).map_err(|e| IngressError::new(&what, e))?;
        self.call(&what, conversation, "answer", body).await
    }

    /// Answers request `answer.id` by its id alone, whichever conversation's run waits
    /// on it: the conversation is found through the admin API at `admin` (Restate's SQL
    /// over the objects' state), and the run's awakeable resolved through the ingress.
    /// Gives back the conversation resumed. Errors when no run waits on that id, or
    /// when several do (then [`answer`](Ingress::answer) names the conversation).
    pub async fn answer_request(
        &self,
        admin: &str,
        answer: &Answer,
    ) -> Result<String, IngressError> {
        let what = format!("answering `{}`", answer.id);
        let key = format!("request:{}", answer.id).replace('\'', "''");
        let query = json!({
            "query": format!(
                "SELECT service_key, value_utf8 FROM state \
                 WHERE service_name = 'Agent' AND key = '{key}'"
            )
        });
        let url = format!("{}/query", admin.trim_end_matches('/'));
        let request = json_body(self.http.post(&url), &query).header("accept", "application/json");
        let found: Value = read(&what, request.send().await).await?;
        let rows = found["rows"].as_array().cloned().unwrap_or_default();
        let row = match rows.as_slice() {
            [row] => row,
            [] => return Err(IngressError::new(&what, "no run waits on this request")),
            _ => {
                let conversations: Vec<_> =
                    rows.iter().map(|r| r["service_key"].to_string()).collect();
                return Err(IngressError::new(
                    &what,
                    format!(
                        "several conversations wait on it ({}): name one",
                        conversations.join(", ")
                    ),
                ));
            }
        };
        let conversation = row["service_key"].as_str().unwrap_or_default().to_owned();
        let awakeable: String = row["value_utf8"]
            .as_str()
            .and_then(|v| serde_json::from_str(v).ok())
            .ok_or_else(|| {
                IngressError::new(&what, format!("an unreadable awakeable id in {row}"))
            })?;
        let url = format!(
            "{}/restate/awakeables/{}/resolve",
            self.url,
            segment(&awakeable)
        );
        let body = serde_json::to_value(answer).map_err(|e| IngressError::new(&what, e))?;
        let response = json_body(self.http.post(&url), &body)
            .send()
            .await
            .map_err(|e| IngressError::new(&what, e))?;
        if !response.status().is_success() {
            let status = response.status();
            let text = response.text().await.unwrap_or_default();
            return Err(IngressError::new(&what, format!("{status}: {text}")));
        }
        Ok(conversation)
    }

    async fn call<T: DeserializeOwned>(
        &self,
        what: &str,
        conversation: &str,
        handler: &str,
        body: Value,
    ) -> Result<T, IngressError> {
        let url = format!("{}/Agent/{}/{handler}", self.url, segment(conversation));
        let request = if body.is_null() {
            self.http.post(&url)
        } else {
            json_body(self.http.post(&url), &body)
        };
        read(what, request.send().await).await
    }
}

/// Registers the service deployment at `uri` (where [`RestateAgent::serve`](super::RestateAgent::serve)
/// listens) with the Restate server whose admin API is at `admin`
/// (`http://127.0.0.1:9070` by default), as `restate deployments register` does; a
/// changed deployment at the same address replaces the old (`force`).
pub async fn register(admin: &str, uri: &str) -> Result<(), IngressError> {
    let what = format!("registering `{uri}` with {admin}");
    let url = format!("{}/deployments", admin.trim_end_matches('/'));
    let body = json!({"uri": uri, "force": true});
    let sent = json_body(reqwest::Client::new().post(&url), &body)
        .send()
        .await;
    read::<Value>(&what, sent).await.map(|_| ())
}

/// `request` with `body` as its JSON body.
fn json_body(request: reqwest::RequestBuilder, body: &Value) -> reqwest::RequestBuilder {
    request
        .header("content-type", "application/json")
        .body(body.to_string())
}

/// `key` as one URL path segment.
fn segment(key: &str) -> String {
    key.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

async fn read<T: DeserializeOwned>(
    what: &str,
    sent: Result<reqwest::Response, reqwest::Error>,
) -> Result<T, IngressError> {
    let response = sent.map_err(|e| IngressError::new(what, e))?;
    let status = response.status();
    let body = response
        .text()
        .await
        .map_err(|e| IngressError::new(what, e))?;
    if !status.is_success() {
        return Err(IngressError::new(what, format!("{status}: {body}")));
    }
    serde_json::from_str(&body).map_err(|e| IngressError::new(what, format!("{e}: {body}")))
}
