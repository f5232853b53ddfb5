"""Judges Bedrock traffic with botocore, AWS's own Python core (its bundled
`bedrock-runtime` service model, its parameter validator, serializer, parsers and signer).

Usage: botocore_judge.py KIND FILE, FILE holding a JSON list. Prints JSON
{"versions": {...}, "checked": N, "errors": [...], "parsed": [...]}; exits 3 when botocore
is not installed.

- bedrock: request bodies, or {"path", "body"} (the path says Converse or ConverseStream
  and gives the modelId). Each body, with its modelId, must pass botocore's
  ParamValidator on the operation's input shape (unknown keys, types, required members,
  enums, ranges, one member per union), its blobs must be base64, and botocore's own
  rest-json serializer must write the same body and the same path from those parameters.
- bedrock-signatures: requests as sent ({"method", "url", "headers", "body" (base64),
  "access_key", "secret_key", "token", "region"}): botocore's SigV4Auth, given the same
  request, credentials and time (the request's X-Amz-Date), must compute the same
  Authorization header.
- bedrock-response: Converse response bodies, parsed by botocore's rest-json parser;
  every key must be a member of its shape.
- bedrock-stream: {"bytes" (base64 of a whole ConverseStream body), "events"}: botocore's
  EventStream reader must read the frames as exactly these events.
"""

import base64
import binascii
import datetime
import json
import sys


def model():
    import botocore.session

    return botocore.session.get_session().get_service_model("bedrock-runtime")


def decode_blobs(value, shape, path, errors):
    """`value` with its blob members base64-decoded (botocore takes bytes)."""
    kind = shape.type_name
    if kind == "blob":
        if not isinstance(value, str):
            errors.append((path, "a blob must be a base64 string"))
            return value
        try:
            return base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            errors.append((path, "a blob that is not base64"))
            return value
    if kind == "structure" and isinstance(value, dict):
        if shape.is_document_type:
            return value
        return {
            k: decode_blobs(v, shape.members[k], f"{path}/{k}", errors) if k in shape.members else v
            for k, v in value.items()
        }
    if kind == "list" and isinstance(value, list):
        return [decode_blobs(v, shape.member, f"{path}/{i}", errors) for i, v in enumerate(value)]
    if kind == "map" and isinstance(value, dict):
        return {k: decode_blobs(v, shape.value, f"{path}/{k}", errors) for k, v in value.items()}
    return value


def undeclared(value, shape, path):
    """Keys of `value` that `shape` has no member for, all the way down."""
    errors = []
    kind = shape.type_name
    if kind == "structure" and isinstance(value, dict) and not shape.is_document_type:
        for key, item in value.items():
            if key not in shape.members:
                errors.append((f"{path}/{key}", f"not a member of {shape.name}"))
            else:
                errors += undeclared(item, shape.members[key], f"{path}/{key}")
        if shape.is_tagged_union and len(value) != 1:
            errors.append((path, f"a {shape.name} union must set exactly one member"))
    elif kind == "list" and isinstance(value, list):
        for i, item in enumerate(value):
            errors += undeclared(item, shape.member, f"{path}/{i}")
    elif kind == "map" and isinstance(value, dict):
        for key, item in value.items():
            errors += undeclared(item, shape.value, f"{path}/{key}")
    return errors


def judge_requests(items):
    from urllib.parse import unquote

    from botocore.serialize import create_serializer
    from botocore.validate import ParamValidator

    service = model()
    errors = []
    for i, item in enumerate(items):
        where = f"request {i}: "
        path, body = (item["path"], item["body"]) if "path" in item else ("/model/test-model/converse", item)
        operation = "ConverseStream" if path.endswith("/converse-stream") else "Converse"
        op = service.operation_model(operation)
        segments = path.split("/")
        model_id = unquote(segments[-2]) if len(segments) >= 4 else "test-model"
        blob_errors = []
        params = decode_blobs(dict(body, modelId=model_id), op.input_shape, where, blob_errors)
        errors += blob_errors
        report = ParamValidator().validate(params, op.input_shape)
        if report.has_errors():
            errors.append((where, report.generate_report()))
            continue
        serialized = create_serializer("rest-json", include_validation=False).serialize_to_request(params, op)
        theirs = json.loads(serialized["body"] or b"{}")
        if theirs != body:
            errors.append((where, f"botocore writes the body as {json.dumps(theirs)[:400]}"))
        if serialized["url_path"] != path:
            errors.append((where, f"botocore's path is {serialized['url_path']}, not {path}"))
    return errors, []


def judge_signatures(items):
    import botocore.auth
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    errors = []
    for i, item in enumerate(items):
        where = f"request {i}: "
        headers = {k.lower(): v for k, v in item["headers"].items()}
        authorization = headers.get("authorization", "")
        if not authorization.startswith("AWS4-HMAC-SHA256 "):
            errors.append((where, f"not signed with SigV4: {authorization[:60]!r}"))
            continue
        fields = dict(part.strip().split("=", 1) for part in authorization[len("AWS4-HMAC-SHA256 "):].split(","))
        signed = fields["SignedHeaders"].split(";")
        stamp = headers.get("x-amz-date", "")
        when = datetime.datetime.strptime(stamp, "%Y%m%dT%H%M%SZ")
        request = AWSRequest(
            method=item["method"],
            url=item["url"],
            headers={name: headers[name] for name in signed if name in headers and name not in ("x-amz-date", "x-amz-security-token")},
            data=base64.b64decode(item["body"]),
        )
        original = botocore.auth.get_current_datetime
        botocore.auth.get_current_datetime = lambda: when
        try:
            credentials = Credentials(item["access_key"], item["secret_key"], item.get("token"))
            SigV4Auth(credentials, "bedrock", item["region"]).add_auth(request)
        finally:
            botocore.auth.get_current_datetime = original
        theirs = request.headers["Authorization"]
        if theirs != authorization:
            errors.append((where, f"botocore signs it {theirs}, the request says {authorization}"))
        if item.get("token") and headers.get("x-amz-security-token") != item["token"]:
            errors.append((where, "the session token is not sent in X-Amz-Security-Token"))
    return errors, []


def judge_responses(items):
    from botocore.parsers import create_parser

    op = model().operation_model("Converse")
    errors = []
    for i, body in enumerate(items):
        where = f"body {i}: "
        response = {"status_code": 200, "headers": {}, "body": json.dumps(body).encode()}
        parsed = create_parser("rest-json").parse(response, op.output_shape)
        if "Error" in parsed:
            errors.append((where, f"parsed as an error: {parsed['Error']}"))
        errors += undeclared(body, op.output_shape, where)
    return errors, []


class Raw:
    """A finished body, in the form botocore's EventStream reads."""

    def __init__(self, data):
        self.data = data

    def stream(self):
        # Small pieces, as a network delivers them.
        for at in range(0, len(self.data), 7):
            yield self.data[at : at + 7]

    def close(self):
        pass


def as_json(value):
    """A parsed value with its blobs as base64 text, as they travel in JSON."""
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    if isinstance(value, dict):
        return {k: as_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [as_json(v) for v in value]
    return value


def judge_streams(items):
    from botocore.eventstream import EventStream
    from botocore.parsers import EventStreamJSONParser

    op = model().operation_model("ConverseStream")
    shape = op.output_shape.members["stream"]
    errors, parsed_all = [], []
    for i, item in enumerate(items):
        where = f"stream {i}: "
        try:
            stream = EventStream(Raw(base64.b64decode(item["bytes"])), shape, EventStreamJSONParser(), "ConverseStream")
            events = as_json(list(stream))
        except Exception as error:  # noqa: BLE001 - the parser's verdict is the report
            errors.append((where, f"botocore cannot read it: {type(error).__name__}: {error}"))
            continue
        parsed_all.append(events)
        if events != item["events"]:
            errors.append((where, f"botocore reads {json.dumps(events)[:600]}"))
    return errors, parsed_all


def main():
    kind, file = sys.argv[1], sys.argv[2]
    with open(file, encoding="utf-8") as handle:
        items = json.load(handle)
    judge = {
        "bedrock": judge_requests,
        "bedrock-signatures": judge_signatures,
        "bedrock-response": judge_responses,
        "bedrock-stream": judge_streams,
    }[kind]
    try:
        import botocore
    except ImportError as error:
        print(f"botocore not installed: {error}")
        sys.exit(3)
    errors, parsed = judge(items)
    print(json.dumps({
        "versions": {"botocore": botocore.__version__},
        "checked": len(items),
        "errors": [f"{p} {m}" for p, m in errors],
        "parsed": parsed,
    }, default=lambda b: base64.b64encode(b).decode() if isinstance(b, bytes) else str(b)))


if __name__ == "__main__":
    main()
