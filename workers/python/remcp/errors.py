"""Tool failures: a code from the closed set (src/errors.ts, shipped in the catalog) plus a
sentence saying what was wrong and what to do instead, and a JSON detail object."""

# The fallback list when no catalog is loaded (unit tests); the catalog's list wins.
ERROR_CODES = (
    "InvalidArgument", "InvalidAddress", "NotFound", "NoDatabase", "Busy",
    "AmbiguousFatBinary", "Unsupported", "Unavailable", "OpenFailed", "WriteFailed",
    "OutputTooLarge", "Timeout", "Cancelled", "WorkerCrashed", "SandboxError",
    "SandboxTimeout", "SandboxMemory", "Internal",
)


class RemcpError(Exception):
    """A tool failure with one of the closed error codes."""

    def __init__(self, code, message, detail=None):
        if code not in ERROR_CODES:
            raise TypeError(f"Unknown error code {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message
        self.detail = dict(detail or {})

    def payload(self):
        return {"error": self.message, "error_type": self.code, "detail": self.detail}


def error_payload(err, engine=None, tool=None):
    """Turns anything raised into ``{error, error_type, detail}``; an engine's own message is
    kept word for word (never swallowed)."""
    if isinstance(err, RemcpError):
        return err.payload()
    kind = type(err).__name__
    where = f" in {tool}" if tool else ""
    who = f"The {engine} engine failed" if engine else "Internal error"
    return {
        "error": f"{who}{where}: {kind}: {err}; if the request looks right, report it with "
                 f"the call that caused it",
        "error_type": "Internal",
        "detail": {"exception": kind, **({"tool": tool} if tool else {})},
    }
