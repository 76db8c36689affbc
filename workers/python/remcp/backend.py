"""What an engine adapter gives the runtime: load and analyse on the main thread, tool handlers,
name lookup for address expressions, save and close. One backend serves one database."""
import os
import threading
import time

from .address import near_names, parse_address
from .errors import RemcpError


class WorkerEnv:
    """What a backend gets besides its file: the state folder, the database id, capability
    flags and a logger (stderr, plus MCP log notifications)."""

    def __init__(self, state_dir, database_id, allow_scripts=False, allow_write=False,
                 log=None):
        self.state_dir = state_dir
        self.database_id = database_id
        self.allow_scripts = allow_scripts
        self.allow_write = allow_write
        self.log = log or (lambda level, message: None)

    def folder(self, *parts):
        """A folder under the state folder, created on demand."""
        path = os.path.join(self.state_dir, *parts)
        os.makedirs(path, exist_ok=True)
        return path


class CallContext:
    """One running request: cooperative cancellation and progress."""

    def __init__(self, request_id=None, progress_token=None, notify=None, tool=None):
        self.request_id = request_id
        self.progress_token = progress_token
        self.tool = tool
        self.cancelled = threading.Event()
        self.reason = None
        # Cancelled by notifications/cancelled: the client no longer wants any answer.
        self.silent = False
        self._notify = notify

    def cancel(self, reason, silent=False):
        self.reason = reason
        self.silent = self.silent or silent
        self.cancelled.set()

    def check(self):
        """Raises Cancelled once cancellation was requested; handlers call it between steps."""
        if self.cancelled.is_set():
            what = self.tool or "the request"
            raise RemcpError("Cancelled", f"{what} was cancelled ({self.reason or 'requested'})",
                             {"tool": self.tool} if self.tool else {})

    def progress(self, done, total=None, message=None):
        if self.progress_token is None or self._notify is None:
            return
        params = {"progressToken": self.progress_token, "progress": done}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = message
        self._notify("notifications/progress", params)


class Status:
    """The worker's analysis status, shared between the main thread and the reader thread."""

    def __init__(self):
        self._lock = threading.Lock()
        self._state = "loading"
        self._progress = None
        self._message = None
        self._error = None
        self._started = time.monotonic()
        self._seconds = None

    @property
    def state(self):
        with self._lock:
            return self._state

    def set(self, state, progress=None, message=None, error=None):
        with self._lock:
            self._state = state
            self._progress = progress
            self._message = message
            self._error = error
            if state in ("ready", "failed") and self._seconds is None:
                self._seconds = round(time.monotonic() - self._started, 3)

    def snapshot(self):
        with self._lock:
            out = {"state": self._state}
            if self._progress is not None:
                out["progress"] = self._progress
            if self._message is not None:
                out["message"] = self._message
            if self._seconds is not None:
                out["seconds"] = self._seconds
            if self._error is not None:
                out["error"] = self._error
            return out


class Backend:
    """Base class of an engine adapter. Every method runs on the main thread except
    :meth:`interrupt`, which may run on any thread or in a signal handler."""

    #: The backend name (``ghidra``, ``ida``, ``binja``, …).
    name = "backend"
    #: Tools usable while the database is still loading or analysing.
    during_analysis = frozenset()

    def __init__(self, path, options, env):
        self.path = path
        self.options = dict(options or {})
        self.env = env

    def load(self, ctx):
        """Opens the file (format errors surface here as OpenFailed and friends)."""

    def analyse(self, ctx, status):
        """Runs the engine's auto-analysis, updating ``status`` with progress."""

    def handlers(self):
        """Tool name → ``handler(args, ctx) -> dict`` for the catalog tools this engine has."""
        return {}

    def save(self):
        return {"saved": False}

    def close(self):
        """Releases the engine; called once, after save."""

    def interrupt(self):
        """Asks the engine to stop its current long operation (thread-safe, may be a no-op)."""

    # Address expressions.

    def lookup(self, name):
        """The address a name stands for, or None."""
        return None

    def names(self):
        """Candidate names for suggestions (an iterable)."""
        return ()

    def suggest(self, name):
        return near_names(name, self.names())

    def address(self, value):
        return parse_address(value, self.lookup, self.suggest)
