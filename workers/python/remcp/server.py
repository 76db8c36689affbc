"""The MCP server over stdio (newline-delimited JSON-RPC) that every Python worker runs.

Engines are thread-affine, so every engine call runs on the main thread. A reader thread parses
stdin and answers what needs no engine at once (initialize, ping, tools/list, _status, Busy
refusals, cancellations); engine requests reach the main thread through a queue, one at a time.

Signals: SIGTERM (and end of input) saves and exits; the first SIGINT cancels the running call
cooperatively, a second one exits; SIGUSR1 cancels the running call (the supervisor sends it to
IDA workers beside notifications/cancelled).
"""
import json
import os
import queue
import signal
import sys
import threading
import traceback

from .backend import CallContext, Status
from .errors import RemcpError, error_payload
from .results import compact, error_result, fit_to_cap, ok_result
from .schema import check_arguments, check_value

PROTOCOL_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
LATEST_PROTOCOL = "2025-06-18"
_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
_EOF = object()
_CANCEL_MEMORY = 256


class Server:
    """One database's MCP server. ``run()`` blocks on the main thread until stopped."""

    def __init__(self, catalog, backend, status, instream, outstream, *, version,
                 max_output_bytes, check_output=False, allow_scripts=False, allow_write=False):
        self.backend = backend
        self.status = status
        self._in = instream
        self._out = outstream
        self._version = version
        self._max_output_bytes = max_output_bytes
        self._check_output = check_output
        self._write_lock = threading.Lock()
        self._queue = queue.Queue()
        self._state_lock = threading.Lock()
        self._current = None
        self._early_cancels = []
        self._stop_reason = None
        self._sigints = 0
        self._log_level = "info"
        handlers = backend.handlers()
        self._tools = {}
        for spec in catalog["tools"]:
            name = spec["name"]
            cap = spec.get("capability")
            if cap == "scripts" and not allow_scripts or cap == "write" and not allow_write:
                continue
            if name.startswith("_"):
                self._tools[name] = (spec, None)
            elif name in handlers:
                self._tools[name] = (spec, handlers[name])
        self._listing = [{
            "name": spec["name"],
            "description": spec["description"],
            "inputSchema": spec["inputSchema"],
            "outputSchema": spec["outputSchema"],
            "annotations": spec["annotations"],
        } for spec, _ in self._tools.values()]

    # Output.

    def send(self, message):
        try:
            line = compact(message)
        except ValueError as err:
            # NaN or Infinity slipped into a result: answer with an error instead of bad JSON.
            line = compact({"jsonrpc": "2.0", "id": message.get("id"),
                            "result": error_result(TypeError(f"Result is not valid JSON: {err}"))})
        data = (line + "\n").encode("utf-8")
        with self._write_lock:
            try:
                self._out.write(data)
                self._out.flush()
            except (BrokenPipeError, OSError, ValueError):
                self._request_stop("stdout closed")

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def log(self, level, message):
        """Logs to stderr and, at or above the client's level, as an MCP log notification."""
        try:
            sys.stderr.write(f"remcp-worker[{self.backend.name}] {level}: {message}\n")
            sys.stderr.flush()
        except (BrokenPipeError, OSError, ValueError):
            pass  # Whoever read our stderr is gone; logging must never stop a save or an exit.
        if level in _LEVELS and _LEVELS.index(level) >= _LEVELS.index(self._log_level):
            self.notify("notifications/message",
                        {"level": level, "logger": f"remcp-worker-{self.backend.name}",
                         "data": message})

    def _reply(self, rid, result):
        self.send({"jsonrpc": "2.0", "id": rid, "result": result})

    def _fail(self, rid, code, message):
        self.send({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}})

    # The reader thread.

    def _read_loop(self):
        try:
            for raw in iter(self._in.readline, b""):
                line = raw.strip()
                if not line:
                    continue
                try:
                    message = json.loads(line)
                except ValueError as err:
                    self._fail(None, -32700, f"Parse error: {err}")
                    continue
                try:
                    self._route(message)
                except Exception as err:  # A bad message never kills the reader.
                    self.log("error", f"cannot handle a message: {err}")
                    if isinstance(message, dict) and "id" in message:
                        self._fail(message.get("id"), -32603, f"Internal error: {err}")
        except (OSError, ValueError) as err:
            self.log("warning", f"stdin failed: {err}")
        self._request_stop("stdin closed")
        self._queue.put(_EOF)

    def _route(self, message):
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            rid = message.get("id") if isinstance(message, dict) else None
            self._fail(rid, -32600, "Invalid request: expected a JSON-RPC 2.0 object")
            return
        method = message.get("method")
        if method is None:
            return  # A response to a request we never send.
        params = message.get("params") or {}
        if not isinstance(params, dict):
            if "id" in message:
                self._fail(message["id"], -32602, "Invalid params: expected an object")
            return
        if "id" not in message:
            if method == "notifications/cancelled":
                self._cancel(params.get("requestId"), params.get("reason") or "cancelled")
            return
        rid = message["id"]
        if method == "initialize":
            asked = params.get("protocolVersion")
            self._reply(rid, {
                "protocolVersion": asked if asked in PROTOCOL_VERSIONS else LATEST_PROTOCOL,
                "capabilities": {"tools": {"listChanged": False}, "logging": {}},
                "serverInfo": {"name": f"remcp-worker-{self.backend.name}",
                               "version": self._version},
            })
        elif method == "ping":
            self._reply(rid, {})
        elif method == "tools/list":
            self._reply(rid, {"tools": self._listing})
        elif method == "logging/setLevel":
            level = params.get("level")
            if level not in _LEVELS:
                self._fail(rid, -32602, f"Invalid params: level must be one of {_LEVELS}")
            else:
                self._log_level = level
                self._reply(rid, {})
        elif method == "tools/call":
            self._route_call(rid, params)
        else:
            self._fail(rid, -32601, f"Method not found: {method}")

    def _route_call(self, rid, params):
        name = params.get("name")
        if not isinstance(name, str) or name not in self._tools:
            self._fail(rid, -32602, f"Unknown tool: {name}")
            return
        state = self.status.state
        if name == "_status":
            self._reply(rid, ok_result(self.status.snapshot()))
            return
        if state in ("loading", "analysing"):
            if name == "_save":
                self._reply(rid, ok_result({"saved": False}))
                return
            if name not in self.backend.during_analysis:
                self._reply(rid, error_result(self._busy()))
                return
        self._queue.put((rid, params))

    def _busy(self):
        snap = self.status.snapshot()
        pct = f" ({round(snap['progress'] * 100)}%)" if "progress" in snap else ""
        detail = {"state": snap["state"]}
        if "progress" in snap:
            detail["progress"] = snap["progress"]
        return RemcpError("Busy", f"The database is still {snap['state']}{pct}: call "
                                  f"wait_for_analysis first, then retry this call", detail)

    def _cancel(self, rid, reason):
        if rid is None:
            return
        with self._state_lock:
            current = self._current
            if current is not None and current.request_id == rid:
                current.cancel(reason, silent=True)
            else:
                self._early_cancels.append(rid)
                del self._early_cancels[:-_CANCEL_MEMORY]
                return
        self.backend.interrupt()

    def _cancel_current(self, reason):
        with self._state_lock:
            current = self._current
        if current is not None:
            current.cancel(reason)
            self.backend.interrupt()
        return current is not None

    def _request_stop(self, reason):
        if self._stop_reason is None:
            self._stop_reason = reason
        self._cancel_current(reason)

    # Signals (handlers run on the main thread between bytecodes; they only set flags).

    def _install_signals(self):
        signal.signal(signal.SIGTERM, lambda *_: self._request_stop("SIGTERM"))
        signal.signal(signal.SIGINT, self._on_sigint)
        if hasattr(signal, "SIGUSR1"):
            signal.signal(signal.SIGUSR1, lambda *_: self._cancel_current("SIGUSR1"))

    def _on_sigint(self, *_):
        self._sigints += 1
        if self._sigints >= 2:
            self.log("warning", "second SIGINT: exiting without saving")
            os._exit(130)
        self._cancel_current("SIGINT")

    # The main thread.

    def run(self):
        """Loads and analyses, then serves engine calls until stopped; saves and closes."""
        self._install_signals()
        reader = threading.Thread(target=self._read_loop, name="remcp-reader", daemon=True)
        reader.start()
        self._open()
        while self._stop_reason is None:
            try:
                item = self._queue.get(timeout=0.2)
            except queue.Empty:
                continue
            if item is _EOF:
                break
            self._serve_call(*item)
            self._sigints = 0
        self.log("info", f"stopping: {self._stop_reason}")
        code = 0
        try:
            if self.status.state in ("ready", "analysing"):
                saved = self.backend.save()
                self.log("info", f"saved: {saved}")
        except Exception as err:
            code = 1
            self.log("error", f"save failed: {type(err).__name__}: {err}")
        try:
            self.backend.close()
        except Exception as err:
            self.log("error", f"close failed: {type(err).__name__}: {err}")
        return code

    def _open(self):
        ctx = CallContext(tool="analysis", notify=None)
        with self._state_lock:
            self._current = ctx
        try:
            self.backend.load(ctx)
            ctx.check()
            self.status.set("analysing", progress=0.0, message="analysing")
            self.backend.analyse(ctx, self.status)
            ctx.check()
            self.status.set("ready")
        except BaseException as err:  # noqa: BLE001 - an engine may raise anything
            if isinstance(err, (KeyboardInterrupt, SystemExit)):
                err = RemcpError("Cancelled", "Opening was interrupted", {})
            if not isinstance(err, RemcpError):
                self.log("error", traceback.format_exc())
            payload = error_payload(err, self.backend.name, "open_database")
            if payload["error_type"] == "Internal":
                payload["error_type"] = "OpenFailed"
            self.status.set("failed", error=payload)
        finally:
            with self._state_lock:
                self._current = None

    def _serve_call(self, rid, params):
        with self._state_lock:
            if rid in self._early_cancels:
                self._early_cancels.remove(rid)
                return
            meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else {}
            name = params["name"]
            ctx = CallContext(rid, meta.get("progressToken"), self.notify, tool=name)
            self._current = ctx
        try:
            result = self._run_tool(name, params.get("arguments"), ctx)
        finally:
            with self._state_lock:
                self._current = None
        if not ctx.silent:
            self._reply(rid, result)

    def _run_tool(self, name, raw_args, ctx):
        spec, handler = self._tools[name]
        try:
            args = check_arguments(name, spec["inputSchema"], raw_args)
            if name == "_save":
                value = self.backend.save()
            else:
                if self.status.state != "ready" and name not in self.backend.during_analysis:
                    raise self._busy()
                value = handler(args, ctx)
            ctx.check()
            if not isinstance(value, dict):
                raise TypeError(f"{name} returned {type(value).__name__}, not an object")
            if self._check_output:
                schema = spec["outputSchema"]
                problem, _ = check_value(value, schema, "result", schema)
                if problem is not None:
                    raise TypeError(f"{name} returned a result that breaks its output schema: "
                                    f"{problem[0]}: {problem[1]}")
            return ok_result(fit_to_cap(value, self._max_output_bytes))
        except KeyboardInterrupt:
            return error_result(RemcpError("Cancelled", f"{name} was interrupted", {"tool": name}))
        except Exception as err:
            if not isinstance(err, RemcpError):
                self.log("error", traceback.format_exc())
            return error_result(err, self.backend.name, name)
