//! Unit tests of the elicitations and answers of suspended calls (`elicit.rs`).

use super::*;

fn schema_of(params: &ElicitRequestParams) -> Value {
    match params {
        ElicitRequestParams::FormElicitationParams {
            requested_schema, ..
        } => serde_json::to_value(requested_schema).unwrap(),
        other => panic!("not a form: {other:?}"),
    }
}

#[test]
fn requests_become_elicitations_by_kind() {
    let plain = Request::input("Which environment?");
    let (params, field) = elicitation_for(&plain, true).unwrap();
    assert_eq!(field.as_deref(), Some(ANSWER_FIELD));
    assert_eq!(
        schema_of(&params)["properties"][ANSWER_FIELD]["type"],
        "string"
    );

    let schema = json!({
        "type": "object",
        "properties": {
            "env": {"type": "string", "enum": ["dev", "prod"], "default": "dev"},
            "size": {"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]},
            "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
        },
        "required": ["env"],
    });
    let (params, field) =
        elicitation_for(&Request::input("Pick").with_data(schema.clone()), true).unwrap();
    assert_eq!(field, None);
    assert_eq!(schema_of(&params), schema);

    let (params, _) = elicitation_for(&Request::approval("Delete?"), true).unwrap();
    assert_eq!(
        schema_of(&params),
        json!({"type": "object", "properties": {}})
    );

    let login = Request::authorization("https://example.com/login", "Log in");
    let (params, _) = elicitation_for(&login, true).unwrap();
    assert!(
        matches!(params, ElicitRequestParams::UrlElicitationParams { ref url, .. } if url == "https://example.com/login")
    );
    let (params, _) = elicitation_for(&login, false).unwrap();
    assert!(
        matches!(params, ElicitRequestParams::FormElicitationParams { ref message, .. } if message.ends_with("https://example.com/login"))
    );
}

#[test]
fn every_schema_of_the_subset_reaches_the_client_unchanged() {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "name": {"type": "string", "title": "Name", "description": "Who", "minLength": 1, "maxLength": 40, "default": "Ada"},
            "email": {"type": "string", "format": "email"},
            "age": {"type": "integer", "minimum": 0, "maximum": 150, "default": 30},
            "score": {"type": "number", "default": 95.5},
            "ok": {"type": "boolean", "default": true},
            "size": {"type": "string", "enum": ["s", "l"], "default": "s"},
            "legacy": {"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"]},
            "titled": {"type": "string", "oneOf": [{"const": "s", "title": "Small"}]},
            "tags": {"type": "array", "items": {"type": "string", "enum": ["x", "y"]}, "minItems": 1, "maxItems": 2, "default": ["x"]},
            "labels": {"type": "array", "items": {"anyOf": [{"const": "x", "title": "X"}]}},
        },
        "required": ["name"],
    });
    let (params, _) = elicitation_for(&Request::input("All").with_data(schema.clone()), false)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(schema_of(&params), schema);
    // A request made from another server's elicitation carries it under `schema` (earlier
    // releases: `requestedSchema`).
    for key in ["schema", "requestedSchema"] {
        let relayed = Request::input("All").with_data(json!({ key: schema }));
        let (params, _) = elicitation_for(&relayed, false).unwrap();
        assert_eq!(schema_of(&params)["properties"]["tags"]["maxItems"], 2);
    }
}

#[test]
fn a_schema_outside_the_subset_is_refused_and_a_payload_is_not_a_schema() {
    let nested = Request::input("Where?").with_data(json!({
        "type": "object",
        "properties": {"address": {"type": "object", "properties": {"city": {"type": "string"}}}},
    }));
    let error = elicitation_for(&nested, false).unwrap_err();
    assert_eq!(error.property.as_deref(), Some("address"));
    let relayed = Request::input("Zip?").with_data(json!({
        "requestedSchema": {"type": "object", "properties": {"zip": {"type": "string", "pattern": "[0-9]+"}}},
    }));
    assert!(elicitation_for(&relayed, false).is_err());
    // Data that is no schema (say, what the tool wants to remember) keeps the one field.
    let payload = Request::input("Name?").with_data(json!({"draft": 3}));
    let (params, field) = elicitation_for(&payload, false).unwrap();
    assert_eq!(field.as_deref(), Some(ANSWER_FIELD));
    assert_eq!(schema_of(&params)["required"], json!([ANSWER_FIELD]));
}

#[test]
fn elicitation_results_become_answers() {
    let accept =
        ElicitResult::new(ElicitationAction::Accept).with_content(json!({"answer": "prod"}));
    let answer = answer_for("r", Some("answer"), &accept);
    assert_eq!((answer.ok, answer.text()), (true, Some("prod")));
    let whole = answer_for("r", None, &accept);
    assert_eq!(whole.data, Some(json!({"answer": "prod"})));
    let approved = answer_for("r", None, &ElicitResult::new(ElicitationAction::Accept));
    assert!(approved.ok && approved.data.is_none());
    let declined = answer_for("r", None, &ElicitResult::new(ElicitationAction::Decline));
    assert_eq!(
        (declined.ok, declined.reason.as_deref()),
        (false, Some("decline"))
    );
    let cancelled = answer_for("r", None, &ElicitResult::new(ElicitationAction::Cancel));
    assert_eq!(cancelled.reason.as_deref(), Some("cancel"));
}
