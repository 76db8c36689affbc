"""Argument checking against the catalog's JSON Schemas (the subset zod emits: type, properties,
required, additionalProperties, anyOf, enum, const, bounds, lengths, pattern, items,
propertyNames, $ref into $defs). Mirrors src/protocol/validate.ts: a missing, mistyped or
undeclared argument is InvalidArgument naming it and the accepted ones; null means absent."""
import math
import re

from .errors import RemcpError

_TYPE_NAMES = {bool: "boolean", int: "integer", float: "number", str: "string", list: "array",
               dict: "object", type(None): "null"}


def _kind(value):
    return _TYPE_NAMES.get(type(value), type(value).__name__)


def check_arguments(tool, schema, args):
    """Checks a tool's arguments; returns them with nulls dropped and integral floats as ints."""
    accepted = list((schema.get("properties") or {}).keys())
    listing = ", ".join(accepted) if accepted else "none"
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise RemcpError("InvalidArgument",
                         f"{tool} takes an object of named arguments; it accepts: {listing}",
                         {"accepted": accepted})
    args = {k: v for k, v in args.items() if v is not None}
    props = schema.get("properties") or {}
    if schema.get("additionalProperties") is False:
        extra = [k for k in args if k not in props]
        if extra:
            names = ", ".join(f'"{k}"' for k in extra)
            raise RemcpError("InvalidArgument",
                             f"{tool} has no parameter {names}; it accepts: {listing}",
                             {"param": extra[0], "accepted": accepted})
    for name in schema.get("required") or []:
        if name not in args:
            raise RemcpError(
                "InvalidArgument",
                f'{tool} is missing the required parameter "{name}"; it accepts: {listing}',
                {"param": name, "accepted": accepted})
    out = {}
    for name, value in args.items():
        sub = props.get(name)
        if sub is None:
            out[name] = value
            continue
        problem, value = check_value(value, sub, name, schema)
        if problem is not None:
            path, message = problem
            raise RemcpError("InvalidArgument",
                             f'{tool} parameter "{path}" is invalid: {message}; it accepts: '
                             f"{listing}",
                             {"param": path, "accepted": accepted})
        out[name] = value
    return out


def check_value(value, schema, path, root):
    """Returns ``(problem, value)``: problem is None or ``(path, message)``; value is normalized
    (integral floats become ints where an integer is expected)."""
    if "$ref" in schema:
        schema = _resolve(schema["$ref"], root)
    if "anyOf" in schema or "oneOf" in schema:
        branches = schema.get("anyOf") or schema.get("oneOf")
        first = None
        for branch in branches:
            problem, normalized = check_value(value, branch, path, root)
            if problem is None:
                return None, normalized
            first = first or problem
        expected = " or ".join(sorted({_expected(b, root) for b in branches}))
        if all(_type_ok(value, b, root) is False for b in branches):
            return (path, f"expected {expected}, received {_kind(value)}"), value
        return first, value
    if "enum" in schema and value not in schema["enum"]:
        options = ", ".join(_show(v) for v in schema["enum"])
        return (path, f"expected one of {options}, received {_show(value)}"), value
    if "const" in schema and value != schema["const"]:
        return (path, f"expected {_show(schema['const'])}"), value
    ok = _type_ok(value, schema, root)
    if ok is False:
        return (path, f"expected {_expected(schema, root)}, received {_kind(value)}"), value
    if isinstance(value, float) and _wants_integer(schema) and value.is_integer():
        value = int(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if not math.isfinite(value):
            return (path, "expected a finite number"), value
        for key, test, word in (("minimum", lambda v, b: v >= b, "≥"),
                                ("maximum", lambda v, b: v <= b, "≤"),
                                ("exclusiveMinimum", lambda v, b: v > b, ">"),
                                ("exclusiveMaximum", lambda v, b: v < b, "<")):
            bound = schema.get(key)
            if isinstance(bound, (int, float)) and not test(value, bound):
                return (path, f"must be {word} {_show(bound)}, got {_show(value)}"), value
    if isinstance(value, str):
        n = _js_length(value)
        if "minLength" in schema and n < schema["minLength"]:
            return (path, f"must be at least {schema['minLength']} characters long"), value
        if "maxLength" in schema and n > schema["maxLength"]:
            return (path, f"must be at most {schema['maxLength']} characters long"), value
        if "pattern" in schema and not re.search(schema["pattern"], value):
            return (path, f"must match {schema['pattern']}"), value
    if isinstance(value, list):
        if "minItems" in schema and len(value) < schema["minItems"]:
            return (path, f"must have at least {schema['minItems']} items"), value
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            return (path, f"must have at most {schema['maxItems']} items"), value
        items = schema.get("items")
        if isinstance(items, dict):
            out = []
            for i, item in enumerate(value):
                problem, item = check_value(item, items, f"{path}.{i}", root)
                if problem is not None:
                    return problem, value
                out.append(item)
            value = out
    if isinstance(value, dict):
        props = schema.get("properties") or {}
        for name in schema.get("required") or []:
            if name not in value:
                return (f"{path}.{name}", "required"), value
        extra = schema.get("additionalProperties")
        names = schema.get("propertyNames")
        out = {}
        for name, item in value.items():
            if isinstance(names, dict):
                problem, _ = check_value(name, names, f"{path}.{name}", root)
                if problem is not None:
                    return problem, value
            sub = props.get(name)
            if sub is None:
                if extra is False:
                    return (f"{path}.{name}", "is not a known field"), value
                sub = extra if isinstance(extra, dict) else None
            if sub is not None:
                problem, item = check_value(item, sub, f"{path}.{name}", root)
                if problem is not None:
                    return problem, value
            out[name] = item
        value = out
    return None, value


def _resolve(ref, root):
    if not ref.startswith("#/"):
        raise TypeError(f"Unsupported $ref {ref}")
    node = root
    for part in ref[2:].split("/"):
        node = node[part]
    return node


def _types(schema):
    t = schema.get("type")
    if t is None:
        return None
    return t if isinstance(t, list) else [t]


def _wants_integer(schema):
    types = _types(schema)
    return types is not None and "integer" in types and "number" not in types


def _type_ok(value, schema, root):
    """True/False when the schema states a type; None when it does not."""
    if "$ref" in schema:
        schema = _resolve(schema["$ref"], root)
    if "anyOf" in schema or "oneOf" in schema:
        results = [_type_ok(value, b, root) for b in schema.get("anyOf") or schema["oneOf"]]
        return None if None in results else any(results)
    types = _types(schema)
    if types is None:
        if "enum" in schema:
            return value in schema["enum"]
        return None
    for t in types:
        if t == "null" and value is None:
            return True
        if t == "boolean" and isinstance(value, bool):
            return True
        if t == "string" and isinstance(value, str):
            return True
        if t == "array" and isinstance(value, list):
            return True
        if t == "object" and isinstance(value, dict):
            return True
        if not isinstance(value, bool) and isinstance(value, (int, float)):
            if t == "number" or (t == "integer" and (isinstance(value, int) or
                                                     float(value).is_integer())):
                return True
    return False


def _expected(schema, root):
    if "$ref" in schema:
        schema = _resolve(schema["$ref"], root)
    if "anyOf" in schema:
        return " or ".join(sorted({_expected(b, root) for b in schema["anyOf"]}))
    types = _types(schema)
    if types:
        return " or ".join(types)
    if "enum" in schema:
        return "one of " + ", ".join(_show(v) for v in schema["enum"])
    return "a value"


def _show(value):
    if isinstance(value, str):
        return f'"{value}"'
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _js_length(text):
    # zod counts UTF-16 code units; so do we, for the same limits on both sides.
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)
