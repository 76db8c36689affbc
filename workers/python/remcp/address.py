"""Address expressions (a port of src/protocol/address.ts): ``0x`` hex; all-digit
decimal; a name; ``name+0x10`` / ``.text+0x20`` / ``name-8``; bare hex as a last resort."""
import re

from .errors import RemcpError
from .results import hex_addr

_HEX = re.compile(r"^0x[0-9a-f]+$", re.IGNORECASE)
_DEC = re.compile(r"^[0-9]+$")
_BARE_HEX = re.compile(r"^[0-9a-f]+$", re.IGNORECASE)
_EXPR = re.compile(r"^(.+?)\s*([+-])\s*(0x[0-9a-f]+|[0-9]+)$", re.IGNORECASE)
_SAFE = 2 ** 53


def _number(text):
    if _HEX.match(text):
        value = int(text[2:], 16)
    elif _DEC.match(text):
        value = int(text, 10)
    else:
        return None
    return value if value < _SAFE else None


def parse_address(value, lookup, suggest=None):
    """Resolves an address expression to an int. ``lookup(name)`` returns an address or None;
    ``suggest(name)`` returns near names for the error message."""
    if isinstance(value, bool):
        raise RemcpError("InvalidAddress", f"Address {value} is not a number or expression",
                         {"address": value})
    if isinstance(value, int):
        if value < 0 or value >= _SAFE:
            raise RemcpError("InvalidAddress", f"Address {value} is not a non-negative integer",
                             {"address": value})
        return value
    text = str(value).strip()
    if not text:
        raise RemcpError("InvalidAddress", "Address is empty", {})
    number = _number(text)
    if number is not None:
        return number
    if _HEX.match(text) or _DEC.match(text):
        raise RemcpError("InvalidAddress", f"Address {text} is too large for remcp (≥ 2^53)",
                         {"address": text})
    named = lookup(text)
    if named is not None:
        return named
    expr = _expression(text, lookup)
    if expr is not None:
        return expr
    if _BARE_HEX.match(text):
        bare = int(text, 16)
        if bare < _SAFE:
            return bare
    near = list(suggest(text))[:5] if suggest else []
    hint = (f"; did you mean {', '.join(near)}?" if near else
            "; use 0x hex, a decimal number, or a name from list_names/list_functions")
    raise RemcpError("InvalidAddress", f'Cannot parse address "{text}": no such name{hint}',
                     {"address": text, "suggestions": near})


def _expression(text, lookup):
    m = _EXPR.match(text)
    if not m:
        return None
    base_text, sign, offset_text = m.groups()
    offset = _number(offset_text)
    if offset is None:
        return None
    base = _number(base_text)
    if base is None:
        base = lookup(base_text)
    if base is None:
        base = _expression(base_text, lookup)
    if base is None:
        return None
    value = base + offset if sign == "+" else base - offset
    if value < 0 or value >= _SAFE:
        raise RemcpError("InvalidAddress", f'Address expression "{text}" is out of range',
                         {"address": text, "value": hex_addr(value) if value >= 0 else value})
    return value


def near_names(name, candidates, limit=5):
    """Names that share a substring with ``name``, for suggestions."""
    lower = name.lower()
    out = []
    for c in candidates:
        cl = c.lower()
        if lower in cl or (len(lower) >= 3 and len(cl) >= 3 and cl in lower):
            out.append(c)
            if len(out) >= limit:
                break
    return out
