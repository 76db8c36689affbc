"""The result rules of docs/ARCHITECTURE.md (a port of src/protocol/results.ts and paging.ts): object-only
structured content, compact JSON text, pages, the output cap, and never cut, invalid JSON."""
import json
import re

from .errors import RemcpError, error_payload
from .linear_re import LinearPattern, PatternError

DEFAULT_LIMIT = 100
MAX_LIMIT = 10_000
DEFAULT_MAX_OUTPUT_BYTES = 128 * 1024


def compact(value):
    """Compact JSON as JavaScript's JSON.stringify writes it (no NaN/Infinity)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def byte_length(value):
    return len(compact(value).encode("utf-8"))


def ok_result(value):
    """A successful tools/call result whose text is exactly the compact JSON of ``value``."""
    if not isinstance(value, dict):
        raise TypeError(f"A tool result must be an object, got {type(value).__name__}")
    return {"content": [{"type": "text", "text": compact(value)}], "structuredContent": value}


def error_result(err, engine=None, tool=None):
    """A failed result: the error object as text only (src/protocol/results.ts says why)."""
    payload = error_payload(err, engine, tool)
    return {"content": [{"type": "text", "text": compact(payload)}], "isError": True}


def hex_addr(value):
    """``0x``-prefixed lowercase hex, the one way addresses leave remcp."""
    return "0x%x" % value


def fit_to_cap(value, max_bytes):
    """Makes ``value`` fit in ``max_bytes`` of compact JSON, keeping its shape: a page keeps the
    longest prefix of items that fits; otherwise the longest string is cut at a line end; anything
    else is OutputTooLarge."""
    size = byte_length(value)
    if size <= max_bytes:
        return value
    if isinstance(value.get("items"), list):
        cut = _cut_page(value, value["items"], max_bytes)
        if cut is not None:
            return cut
    cut = _cut_longest_string(value, max_bytes)
    if cut is not None:
        return cut
    raise RemcpError(
        "OutputTooLarge",
        f"Result is {size} bytes, over the {max_bytes}-byte output cap: ask for less "
        f"(a smaller limit or count, a filter, or a narrower address range)",
        {"bytes": size, "max_bytes": max_bytes},
    )


def _with_warning(value, message):
    warnings = list(value.get("warnings") or [])
    warnings.append({"code": "truncated", "message": message})
    return warnings


def _cut_page(value, items, max_bytes):
    offset = value.get("offset") if isinstance(value.get("offset"), int) else 0

    def build(k):
        out = dict(value)
        out.update(items=items[:k], has_more=True, next_offset=offset + k, truncated=True)
        out["warnings"] = _with_warning(
            value,
            f"Only {k} of {len(items)} items fit in the output cap; "
            f"call again with offset {offset + k} for the rest",
        )
        return out

    if byte_length(build(0)) > max_bytes:
        return None
    lo, hi = 0, len(items) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if byte_length(build(mid)) <= max_bytes:
            lo = mid
        else:
            hi = mid - 1
    return build(lo)


def _cut_longest_string(value, max_bytes):
    key, longest = None, 0
    for k, v in value.items():
        if isinstance(v, str) and len(v) > longest:
            key, longest = k, len(v)
    if key is None:
        return None
    text = value[key]

    def build(cut_at):
        kept = text[:cut_at]
        lines = 0 if not kept else len(kept.split("\n"))
        out = dict(value)
        out[key] = kept
        out["truncated"] = True
        out["warnings"] = _with_warning(
            value,
            f"{key} was cut after {lines} lines to fit the output cap; "
            f"ask for a smaller range to see the rest",
        )
        return out

    if byte_length(build(0)) > max_bytes:
        return None
    ends = [0] + [m.end() for m in re.finditer("\n", text)]
    lo, hi = 0, len(ends) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if byte_length(build(ends[mid])) <= max_bytes:
            lo = mid
        else:
            hi = mid - 1
    return build(ends[lo])


def compile_filter(pattern, param="filter"):
    """A user filter as a case-insensitive pattern matched in linear time (RE2 semantics, as on
    the TypeScript side), or None; invalid ones and backtracking-only constructs are
    InvalidArgument."""
    if not pattern:
        return None
    if len(pattern) > 500:
        raise RemcpError("InvalidArgument", f"{param} is longer than 500 characters",
                         {"param": param})
    try:
        return LinearPattern(pattern)
    except PatternError as err:
        if err.unsupported:
            raise RemcpError(
                "InvalidArgument",
                f"{param} uses {err.unsupported}, which patterns here do not support: they run "
                "on RE2 semantics so that matching takes linear time; rewrite it without them",
                {"param": param},
            ) from None
        raise RemcpError("InvalidArgument",
                         f"{param} is not a valid regular expression (RE2 syntax): {err}",
                         {"param": param}) from None


def page_of(kept, args, fmt=lambda item: item):
    """One page of an already-filtered sequence, formatting only the returned items."""
    offset = args.get("offset") or 0
    limit = args.get("limit") or DEFAULT_LIMIT
    chunk = list(kept[offset:offset + limit])
    page = {
        "items": [fmt(item) for item in chunk],
        "total": len(kept),
        "offset": offset,
        "limit": limit,
        "has_more": offset + len(chunk) < len(kept),
    }
    if page["has_more"]:
        page["next_offset"] = offset + len(chunk)
    return page


def paginate(items, args, text, fmt=lambda item: item):
    """Filters ``items`` by ``args['filter']`` over ``text(item)``, then pages them."""
    regex = compile_filter(args.get("filter"))
    kept = [i for i in items if regex.search(text(i))] if regex else items
    return page_of(kept, args, fmt)
