"""Checks request bodies against the providers' official Python SDK request types.

Usage: validate.py KIND FILE, where FILE holds a JSON list of bodies. Prints JSON
{"versions": {...}, "errors": [...]}, one error per offending place, with its path; exits 3
when the SDK is not installed.

Request bodies:
- openai: `openai.types.chat.completion_create_params.CompletionCreateParams{Streaming,
  NonStreaming}`, the TypedDicts `client.chat.completions.create(**body)` is typed with.
- openai-responses: `openai.types.responses.response_create_params.ResponseCreateParams{
  Streaming,NonStreaming}`, what `client.responses.create(**body)` is typed with.
- anthropic: `anthropic.types.message_create_params.MessageCreateParams{Streaming,
  NonStreaming}` (`thinking`, `cache_control` and `output_config` included).
- gemini-vertex: the `gemini` check, then google-genai's Vertex request converter rebuilds
  the body from its own types (`vertexai=True`); it must come out the same.
- anthropic-vertex: an `AnthropicVertex` client (offline) builds the request; the body
  must be what `MessageCreateParams` accepts once the client has moved `model` to the URL
  and added `anthropic_version`.
- gemini: google-genai's pydantic models (`Content`, `Tool`, `ToolConfig`,
  `GenerationConfig` with its `ThinkingConfig`), which forbid unknown fields, for each
  field of a `generateContent` body.

Response bodies and stream events (the fixtures the tests replay), parsed by the SDKs'
own models; a key the model does not declare is an error too (the OpenAI and Anthropic
models would keep it silently):
- openai-responses-response: `Response`; openai-responses-stream: `ResponseStreamEvent`.
- anthropic-response: `Message` (every content block must parse as the block class its
  `type` names); anthropic-stream: `RawMessageStreamEvent`.
- gemini-response: `GenerateContentResponse` (each body, or each streamed chunk).

The TypedDicts are walked here rather than through pydantic: pydantic ignores unknown keys
in a TypedDict and validates `Iterable[...]` fields lazily, so it would accept a body the
API refuses. This walk refuses any key the type does not declare, requires the required
ones, and checks every literal, union, list and scalar on the way down.
"""

import collections.abc
import json
import sys
import types
import typing

from typing_extensions import get_args, get_origin, get_type_hints, is_typeddict

WRAPPERS = {typing.Annotated}
for name in ("Required", "NotRequired", "ReadOnly"):
    for module in (typing, __import__("typing_extensions")):
        if hasattr(module, name):
            WRAPPERS.add(getattr(module, name))
SEQUENCES = {list, tuple, collections.abc.Iterable, collections.abc.Sequence}
MAPPINGS = {dict, collections.abc.Mapping}


def check(value, tp, path):
    """The list of (path, message) errors of `value` against the type `tp`."""
    origin, args = get_origin(tp), get_args(tp)
    if tp is typing.Any or tp is object:
        return []
    if hasattr(tp, "__value__"):  # a `type X = ...` alias
        return check(value, tp.__value__, path)
    if origin in WRAPPERS:
        return check(value, args[0], path)
    if isinstance(tp, typing.TypeVar):
        return []
    if tp is type(None) or tp is None:
        return [] if value is None else [(path, f"expected null, got {value!r:.60}")]
    if origin is typing.Union or origin is types.UnionType:
        attempts = [check(value, arg, path) for arg in args]
        if any(not errors for errors in attempts):
            return []
        # Report the alternative the value meant: its own literals (`role`, `type`)
        # match; then the one that got furthest, with the fewest errors.
        def mismatched_tag(errors):
            return any(p.count("/") == path.count("/") + 1 and m.startswith("expected one of") for p, m in errors)

        return min(attempts, key=lambda e: (mismatched_tag(e), -max(len(p) for p, _ in e), len(e)))
    if origin is typing.Literal:
        return [] if value in args else [(path, f"expected one of {list(args)}, got {value!r:.60}")]
    if is_typeddict(tp):
        if not isinstance(value, dict):
            return [(path, f"expected an object ({tp.__name__}), got {type(value).__name__}")]
        hints = get_type_hints(tp, include_extras=True)
        errors = [(path + f"/{key}", f"unknown key for {tp.__name__}") for key in value if key not in hints]
        errors += [
            (path + f"/{key}", f"missing required key of {tp.__name__}")
            for key in getattr(tp, "__required_keys__", ())
            if key not in value
        ]
        for key, item in value.items():
            if key in hints:
                errors += check(item, hints[key], path + f"/{key}")
        return errors
    if origin in SEQUENCES or tp in SEQUENCES:
        if not isinstance(value, list):
            return [(path, f"expected a list, got {type(value).__name__}")]
        item_type = args[0] if args else typing.Any
        return [error for i, item in enumerate(value) for error in check(item, item_type, f"{path}/{i}")]
    if origin in MAPPINGS or tp in MAPPINGS:
        if not isinstance(value, dict):
            return [(path, f"expected an object, got {type(value).__name__}")]
        item_type = args[1] if len(args) == 2 else typing.Any
        return [error for k, item in value.items() for error in check(item, item_type, f"{path}/{k}")]
    if tp is bool:
        return [] if isinstance(value, bool) else [(path, f"expected a boolean, got {value!r:.60}")]
    if tp is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
        return [] if ok else [(path, f"expected an integer, got {value!r:.60}")]
    if tp is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        return [] if ok else [(path, f"expected a number, got {value!r:.60}")]
    if tp is str:
        return [] if isinstance(value, str) else [(path, f"expected a string, got {value!r:.60}")]
    # Anything else (file handles, bytes, dates) never appears in these bodies.
    return [(path, f"unexpected type {tp!r} in the SDK's definition")]


def validate_openai(bodies):
    import openai
    from openai.types.chat import completion_create_params as params

    errors = []
    for i, body in enumerate(bodies):
        tp = params.CompletionCreateParamsStreaming if body.get("stream") else params.CompletionCreateParamsNonStreaming
        errors += check(body, tp, f"body {i}: ")
    return {"openai": openai.__version__}, errors


def validate_anthropic(bodies):
    import anthropic
    from anthropic.types import message_create_params as params

    errors = []
    for i, body in enumerate(bodies):
        tp = params.MessageCreateParamsStreaming if body.get("stream") else params.MessageCreateParamsNonStreaming
        errors += check(body, tp, f"body {i}: ")
        errors += cache_breakpoints(body, f"body {i}: ")
    return {"anthropic": anthropic.__version__}, errors


def cache_breakpoints(body, path):
    """The API's own limit, which no type can say: at most four blocks carry `cache_control`."""
    def count(value):
        if isinstance(value, dict):
            return ("cache_control" in value) + sum(count(v) for v in value.values())
        if isinstance(value, list):
            return sum(count(v) for v in value)
        return 0

    found = count(body)
    return [] if found <= 4 else [(path + "/", f"{found} cache_control breakpoints, at most 4 allowed")]


def declared(parsed, raw, path):
    """Keys of `raw` (a JSON value) that the pydantic object `parsed` has no field for,
    all the way down."""
    import pydantic

    errors = []
    if isinstance(parsed, pydantic.BaseModel) and isinstance(raw, dict):
        fields = {}
        for name, field in type(parsed).model_fields.items():
            fields[field.alias or name] = name
            fields[name] = name
        for key, value in raw.items():
            if key not in fields:
                errors.append((f"{path}/{key}", f"unknown key for {type(parsed).__name__}"))
            else:
                errors += declared(getattr(parsed, fields[key], None), value, f"{path}/{key}")
    elif isinstance(parsed, (list, tuple)) and isinstance(raw, list):
        for i, (item, value) in enumerate(zip(parsed, raw)):
            errors += declared(item, value, f"{path}/{i}")
    return errors


def parse_all(bodies, tp):
    """Each body parsed as `tp` (a class or a union), with its undeclared keys."""
    import pydantic

    adapter = pydantic.TypeAdapter(tp)
    errors = []
    for i, body in enumerate(bodies):
        try:
            parsed = adapter.validate_python(body)
        except pydantic.ValidationError as error:
            for detail in error.errors():
                errors.append((f"body {i}: /" + "/".join(str(p) for p in detail["loc"]), detail["msg"]))
            continue
        errors += declared(parsed, body, f"body {i}: ")
        kind = body.get("type") if isinstance(body, dict) else None
        if kind is not None and getattr(parsed, "type", kind) != kind:
            errors.append((f"body {i}: /type", f"parsed as {type(parsed).__name__}"))
    return errors


def validate_openai_responses(bodies):
    import openai
    from openai.types.responses import response_create_params as params

    errors = []
    for i, body in enumerate(bodies):
        tp = params.ResponseCreateParamsStreaming if body.get("stream") else params.ResponseCreateParamsNonStreaming
        errors += check(body, tp, f"body {i}: ")
    return {"openai": openai.__version__}, errors


def validate_openai_responses_response(bodies):
    import openai
    from openai.types.responses import Response

    return {"openai": openai.__version__}, parse_all(bodies, Response)


def validate_openai_responses_stream(bodies):
    import openai
    from openai.types.responses import ResponseStreamEvent

    return {"openai": openai.__version__}, parse_all(bodies, ResponseStreamEvent)


def validate_anthropic_stream(bodies):
    import anthropic
    from anthropic.types import RawMessageStreamEvent

    return {"anthropic": anthropic.__version__}, parse_all(bodies, RawMessageStreamEvent)


def validate_gemini_response(bodies):
    from google import genai
    from google.genai import types as t

    return {"google-genai": genai.__version__}, parse_all(bodies, t.GenerateContentResponse)


def validate_anthropic_response(bodies):
    """Response bodies (not requests) against the SDK's `Message` model: every content block
    must parse as the block class its `type` names."""
    import anthropic
    import pydantic
    from anthropic.types import Message

    errors = []
    for i, body in enumerate(bodies):
        try:
            message = Message.model_validate(body)
        except pydantic.ValidationError as error:
            for detail in error.errors():
                errors.append((f"body {i}: /" + "/".join(str(p) for p in detail["loc"]), detail["msg"]))
            continue
        for b, block in enumerate(message.content):
            if getattr(block, "type", None) != body["content"][b]["type"]:
                errors.append((f"body {i}: /content/{b}", f"parsed as {type(block).__name__}"))
    return {"anthropic": anthropic.__version__}, errors


def validate_gemini(bodies):
    import pydantic
    from google import genai
    from google.genai import types as t

    fields = {
        "contents": lambda v: [t.Content.model_validate(c) for c in v],
        "systemInstruction": t.Content.model_validate,
        "tools": lambda v: [t.Tool.model_validate(tool) for tool in v],
        "generationConfig": t.GenerationConfig.model_validate,
        "toolConfig": t.ToolConfig.model_validate,
    }
    errors = []
    for i, body in enumerate(bodies):
        path = f"body {i}: "
        if "contents" not in body:
            errors.append((path + "/contents", "missing required key"))
        for key, value in body.items():
            if key not in fields:
                errors.append((path + f"/{key}", "unknown key for generateContent"))
                continue
            try:
                fields[key](value)
            except pydantic.ValidationError as error:
                for detail in error.errors():
                    where = "/".join(str(p) for p in detail["loc"])
                    errors.append((path + f"/{key}/{where}", detail["msg"]))
        # The API's own rule: a function response answers a call of the turn before it.
        for c, content in enumerate(body.get("contents", [])):
            for part in content.get("parts", []):
                if "functionResponse" in part and not part["functionResponse"].get("name"):
                    errors.append((path + f"/contents/{c}", "functionResponse without a name"))
    return {"google-genai": genai.__version__}, errors


def validate_gemini_vertex(bodies):
    """Vertex AI's `generateContent` body: each body passes the `gemini` check, then is
    rebuilt as the SDK's own request (`GenerateContentConfig`, `vertexai=True`) through
    google-genai's Vertex request converter (`_GenerateContentParameters_to_vertex`); the
    dict it would send must be ours, key for key (the API reads either key spelling)."""
    import re

    import google.auth.credentials
    import pydantic
    from google import genai
    from google.genai import _api_client, _common, models
    from google.genai import types as t

    class Offline(google.auth.credentials.Credentials):
        def refresh(self, request):
            pass

    client = _api_client.BaseApiClient(vertexai=True, project="p", location="us-central1", credentials=Offline())

    def camel(value):
        if isinstance(value, dict):
            return {re.sub(r"_([a-z])", lambda m: m.group(1).upper(), k): camel(v) for k, v in value.items()}
        if isinstance(value, list):
            return [camel(v) for v in value]
        return value

    versions, errors = validate_gemini(bodies)
    for i, body in enumerate(bodies):
        path = f"body {i}: "
        config = dict(body.get("generationConfig", {}))
        for key in ("systemInstruction", "tools", "toolConfig"):
            if key in body:
                config[key] = body[key]
        try:
            params = t._GenerateContentParameters(
                model="gemini-2.5-flash",
                contents=body.get("contents"),
                config=t.GenerateContentConfig.model_validate(config),
            )
            built = models._GenerateContentParameters_to_vertex(client, params)
        except (pydantic.ValidationError, ValueError, TypeError) as error:
            errors.append((path, f"the Vertex request converter refuses it: {error}"))
            continue
        built.pop("_url", None)
        if not built.get("generationConfig") and "generationConfig" not in body:
            built.pop("generationConfig", None)  # the SDK's empty config, nothing set
        built = camel(json.loads(json.dumps(_common.convert_to_dict(built), default=str)))
        ours = camel(body)
        for key in sorted(set(built) | set(ours)):
            if built.get(key) != ours.get(key):
                errors.append((path + f"/{key}", f"the SDK in Vertex mode sends {json.dumps(built.get(key))[:300]}"))
    return versions, errors


def validate_anthropic_vertex(bodies):
    """Anthropic's Messages body as Vertex AI takes it (`:rawPredict`): the `AnthropicVertex`
    client's own request preparation (`_prepare_options`), given the body with its `model`,
    must send ours; and that body with `model` must pass the `anthropic` check."""
    from anthropic._models import FinalRequestOptions
    from anthropic.lib.vertex import _client

    with_model = []
    errors = []
    for i, body in enumerate(bodies):
        path = f"body {i}: "
        if "model" in body:
            errors.append((path + "/model", "Vertex AI takes the model in the URL, not the body"))
        if not isinstance(body.get("anthropic_version"), str):
            errors.append((path + "/anthropic_version", "missing: Vertex AI requires it"))
        sent = dict(body)
        sent["model"] = "claude-sonnet-4-5"
        with_model.append(sent)
        options = FinalRequestOptions.construct(method="post", url="/v1/messages", json_data=json.loads(json.dumps(sent)))
        prepared = _client._prepare_options(options, project_id="p", region="us-east5")
        for key in sorted(set(prepared.json_data) | set(body)):
            if prepared.json_data.get(key) != body.get(key):
                errors.append((path + f"/{key}", f"AnthropicVertex sends {json.dumps(prepared.json_data.get(key))[:200]}"))
    versions, more = validate_anthropic([{k: v for k, v in b.items() if k != "anthropic_version"} for b in with_model])
    return versions, errors + more


def main():
    provider, file = sys.argv[1], sys.argv[2]
    with open(file, encoding="utf-8") as handle:
        bodies = json.load(handle)
    validate = {
        "openai": validate_openai,
        "openai-responses": validate_openai_responses,
        "openai-responses-response": validate_openai_responses_response,
        "openai-responses-stream": validate_openai_responses_stream,
        "anthropic": validate_anthropic,
        "anthropic-response": validate_anthropic_response,
        "anthropic-stream": validate_anthropic_stream,
        "gemini": validate_gemini,
        "gemini-response": validate_gemini_response,
        "gemini-vertex": validate_gemini_vertex,
        "anthropic-vertex": validate_anthropic_vertex,
    }[provider]
    try:
        versions, errors = validate(bodies)
    except ImportError as error:
        print(f"{provider} SDK not installed: {error}")
        sys.exit(3)
    print(json.dumps({"versions": versions, "checked": len(bodies), "errors": [f"{p} {m}" for p, m in errors]}))


if __name__ == "__main__":
    main()
