//! Unit tests of the elicitation subset check (`elicit_schema.rs`).

use serde_json::json;

use super::*;

fn form(properties: Value) -> Value {
    json!({"type": "object", "properties": properties})
}

fn refused(schema: Value) -> ElicitationSchemaError {
    check_elicitation_schema(&schema).expect_err(&format!("refused: {schema}"))
}

#[test]
fn every_form_of_the_subset_is_accepted() {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "name": {"type": "string", "title": "Name", "minLength": 1, "maxLength": 40, "default": "Ada"},
            "email": {"type": "string", "format": "email"},
            "site": {"type": "string", "format": "uri"},
            "born": {"type": "string", "format": "date"},
            "at": {"type": "string", "format": "date-time"},
            "age": {"type": "integer", "minimum": 0, "maximum": 150, "default": 30},
            "score": {"type": "number", "minimum": 0.5, "default": 95.5},
            "ok": {"type": "boolean", "default": true},
            "size": {"type": "string", "enum": ["s", "l"], "default": "s"},
            "legacy": {"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"]},
            "titled": {"type": "string", "oneOf": [{"const": "s", "title": "Small"}], "default": "s"},
            "tags": {"type": "array", "items": {"type": "string", "enum": ["x", "y"]}, "minItems": 1, "maxItems": 2, "default": ["x"]},
            "labels": {"type": "array", "items": {"anyOf": [{"const": "x", "title": "X"}]}},
        },
        "required": ["name", "tags"],
    });
    check_elicitation_schema(&schema).unwrap();
    check_elicitation_schema(&form(json!({}))).unwrap();
}

#[test]
fn a_schema_outside_the_subset_names_the_property_and_the_fix() {
    let nested = refused(form(
        json!({"address": {"type": "object", "properties": {}}}),
    ));
    assert_eq!(nested.property.as_deref(), Some("address"));
    assert!(nested.to_string().contains("nested object"), "{nested}");
    assert!(nested.fix.contains("top level"), "{nested}");

    let pattern = refused(form(
        json!({"zip": {"type": "string", "pattern": "^[0-9]+$"}}),
    ));
    assert_eq!(pattern.property.as_deref(), Some("zip"));
    assert!(pattern.problem.contains("`pattern`"), "{pattern}");

    for (property, why) in [
        (json!({"type": "string", "format": "ipv4"}), "format"),
        (json!({"type": ["string", "null"]}), "one type name"),
        (json!({"description": "no type"}), "no `type`"),
        (json!({"type": "null"}), "`null`"),
        (
            json!({"type": "array", "items": {"type": "integer"}}),
            "not an enum",
        ),
        (json!({"type": "array"}), "without enum `items`"),
        (json!({"type": "string", "enum": []}), "no choices"),
        (json!({"type": "string", "enum": [1, 2]}), "holds a number"),
        (
            json!({"type": "string", "enum": ["a"], "default": "b"}),
            "not one of the choices",
        ),
        (
            json!({"type": "string", "oneOf": [{"const": "a"}]}),
            "`{const, title}`",
        ),
        (json!({"type": "integer", "default": 1.5}), "not an integer"),
        (
            json!({"type": "number", "minimum": 5, "maximum": 1}),
            "above",
        ),
        (
            json!({"type": "number", "maximum": 1, "default": 3}),
            "outside",
        ),
        (
            json!({"type": "boolean", "default": "yes"}),
            "not a boolean",
        ),
        (json!({"type": "string", "minLength": -1}), "whole number"),
        (
            json!({"type": "array", "items": {"type": "string", "enum": ["a"]}, "default": ["z"]}),
            "list of the choices",
        ),
        (json!("string"), "not an object"),
    ] {
        let error = refused(form(json!({"field": property})));
        assert_eq!(error.property.as_deref(), Some("field"), "{error}");
        assert!(error.to_string().contains(why), "{why}: {error}");
    }
}

#[test]
fn the_schema_as_a_whole_must_be_a_flat_object_form() {
    for (schema, why) in [
        (json!({"type": "string"}), "wrap its schema"),
        (json!([1]), "not a JSON object"),
        (json!({"type": "object"}), "no `properties`"),
        (
            json!({"type": "object", "properties": [], "required": []}),
            "not an object",
        ),
        (
            json!({"type": "object", "properties": {}, "additionalProperties": false}),
            "`additionalProperties`",
        ),
        (
            json!({"type": "object", "properties": {}, "required": "a"}),
            "not an array",
        ),
    ] {
        let error = refused(schema);
        assert_eq!(error.property, None, "{error}");
        assert!(error.to_string().contains(why), "{why}: {error}");
    }
    let missing = refused(json!({"type": "object", "properties": {}, "required": ["ghost"]}));
    assert_eq!(missing.property.as_deref(), Some("ghost"));
}
