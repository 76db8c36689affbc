/**
 * The script run in every fresh sandbox context before the user's code. It installs `console`
 * and `invoke`, and returns helpers the host calls later. The helpers close over the built-ins
 * as they were before user code ran, so a script that replaces `JSON` or `Error` only changes
 * what it sees itself.
 *
 * Called as `prelude(hostLog, hostInvoke, maxLogChars)`:
 * - `hostLog(level, text)` receives one console call, already formatted and cut to
 *   `maxLogChars`;
 * - `hostInvoke(name, argsJson)`, called with two strings only, returns the call's id, or throws;
 *   the host later settles the call with `settle` or `fail`.
 *
 * Returns `{ resultJson, describe, makeError, settle, fail }`:
 * - `resultJson(value)`: the JSON text of a result (`undefined` is `null`); throws when the value
 *   holds a function, symbol, BigInt, promise or cycle;
 * - `describe(thrown)`: JSON text of `{name, message, stack?, code?, detail?}` for any thrown
 *   value, never throwing;
 * - `makeError(message, code, detailJson)`: the `Error` an invoke rejects with;
 * - `settle(id, json)`: resolves the invoke `id` with the value of `json` (rejects it when that
 *   is not JSON); `fail(id, error)`: rejects it.
 *
 * The invoke's promise is made here, in the guest, and settled by one call from the host: a
 * promise made by the host (`newPromise`) took more calls into the engine per invoke (making
 * it, parsing the value, resolving it, releasing its handles), each with the wrapper's overhead
 * (measured, docs/ARCHITECTURE.md section 7).
 */
import type { QuickJSContext, QuickJSHandle } from "quickjs-emscripten-core";

export const GUEST_PRELUDE = String.raw`
(function (hostLog, hostInvoke, maxLogChars) {
  "use strict";
  const G = globalThis;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const ErrorCtor = Error;
  const TypeErrorCtor = TypeError;
  const StringCtor = String;
  const isArray = Array.isArray;
  const defineProperty = Object.defineProperty;
  const apply = Reflect.apply;
  const promiseReject = Promise.reject;
  const trimEnd = String.prototype.trimEnd;
  const PromiseCtor = Promise;
  const reject = (e) => apply(promiseReject, PromiseCtor, [e]);
  // The resolving functions of pending invokes, by id: no prototype, so no script can hook them.
  const resolvers = Object.create(null);
  const rejecters = Object.create(null);

  function jsonOnly(key, value) {
    const t = typeof value;
    if (t === "function" || t === "symbol" || t === "bigint") {
      const where = key === "" ? "the value itself" : "key \"" + key + "\"";
      throw new TypeErrorCtor("a " + t + " cannot be serialized as JSON (at " + where + ")");
    }
    // A promise would serialize as {}: the usual cause is an invoke without await.
    if (value instanceof PromiseCtor) {
      const where = key === "" ? "the result" : "key \"" + key + "\"";
      throw new TypeErrorCtor(
        where + " is a pending Promise, not a value: await it (await invoke(...))",
      );
    }
    return value;
  }

  function formatOne(v) {
    if (typeof v === "string") return v;
    try {
      if (v instanceof ErrorCtor) {
        const head = StringCtor(v.name) + ": " + StringCtor(v.message);
        const stack = typeof v.stack === "string" ? apply(trimEnd, v.stack, []) : "";
        return stack === "" ? head : head + "\n" + stack;
      }
      if (typeof v === "function") return "[Function " + (v.name || "anonymous") + "]";
      if (typeof v === "bigint") return StringCtor(v) + "n";
      const s = stringify(v);
      if (s !== undefined) return s;
    } catch (_) {
      // Fall through: cycles and throwing getters print as String(v).
    }
    try {
      return StringCtor(v);
    } catch (_) {
      return "[unprintable]";
    }
  }

  function format(args) {
    let out = "";
    for (let i = 0; i < args.length && out.length <= maxLogChars; i++) {
      out += (i === 0 ? "" : " ") + formatOne(args[i]);
    }
    return out.length > maxLogChars ? out.slice(0, maxLogChars + 1) : out;
  }

  const console = {};
  for (const level of ["log", "info", "warn", "error", "debug"]) {
    console[level] = function (...args) {
      hostLog(level, format(args));
    };
  }
  defineProperty(G, "console", { value: console, writable: true, configurable: true });

  function invoke(name, args) {
    if (typeof name !== "string") {
      return reject(new TypeErrorCtor("invoke(name, args): name must be a tool name string"));
    }
    if (args === undefined || args === null) args = {};
    if (typeof args !== "object" || isArray(args)) {
      return reject(new TypeErrorCtor("invoke(name, args): args must be an object of named arguments"));
    }
    let json;
    try {
      json = stringify(args, jsonOnly);
    } catch (e) {
      return reject(new TypeErrorCtor("invoke(\"" + name + "\", args): args are not JSON: " + (e && e.message)));
    }
    // A toJSON that returns undefined leaves no text: the host takes strings only, unchecked.
    if (typeof json !== "string") {
      return reject(new TypeErrorCtor("invoke(\"" + name + "\", args): args serialize to nothing"));
    }
    let id;
    try {
      id = hostInvoke(name, json);
    } catch (e) {
      return reject(e);
    }
    return new PromiseCtor((resolve, rejectIt) => {
      resolvers[id] = resolve;
      rejecters[id] = rejectIt;
    });
  }

  function settle(id, json) {
    const resolve = resolvers[id];
    const rejectIt = rejecters[id];
    delete resolvers[id];
    delete rejecters[id];
    let value;
    try {
      value = parse(json);
    } catch (e) {
      rejectIt(e);
      return;
    }
    resolve(value);
  }

  function fail(id, error) {
    const rejectIt = rejecters[id];
    delete resolvers[id];
    delete rejecters[id];
    rejectIt(error);
  }
  defineProperty(G, "invoke", { value: invoke, writable: true, configurable: true });

  function resultJson(value) {
    if (value === undefined) return "null";
    return stringify(value, jsonOnly);
  }

  function describe(e) {
    const out = { name: "", message: "" };
    try {
      if (e instanceof ErrorCtor) {
        out.name = StringCtor(e.name);
        out.message = StringCtor(e.message);
        if (typeof e.stack === "string" && e.stack !== "") out.stack = e.stack;
        if (typeof e.code === "string") out.code = e.code;
        if (e.detail !== undefined) {
          try {
            out.detail = parse(stringify(e.detail));
          } catch (_) {
            // A detail that is not JSON is left out.
          }
        }
      } else if (typeof e === "string") {
        out.message = e;
      } else {
        let s;
        try {
          s = stringify(e);
        } catch (_) {
          s = undefined;
        }
        out.message = s === undefined ? StringCtor(e) : s;
      }
    } catch (_) {
      if (out.message === "") out.message = "[unprintable thrown value]";
    }
    return stringify(out);
  }

  function makeError(message, code, detailJson) {
    const e = new ErrorCtor(message);
    e.code = code;
    e.detail = parse(detailJson);
    return e;
  }

  return { resultJson, describe, makeError, settle, fail };
})
`;

/** The helpers a prelude returned (see {@link GUEST_PRELUDE}), held by the run that uses them. */
export interface PreludeHelpers {
  resultJson: QuickJSHandle;
  describe: QuickJSHandle;
  makeError: QuickJSHandle;
  settle: QuickJSHandle;
  fail: QuickJSHandle;
}

/** Where the guest's `console` and `invoke` land in the host: the run in progress sets them. */
export interface PreludeHost {
  log?: (level: QuickJSHandle | undefined, text: QuickJSHandle | undefined) => void;
  invoke?: (
    name: QuickJSHandle | undefined,
    args: QuickJSHandle | undefined,
  ) => QuickJSHandle | { error: QuickJSHandle };
}

/** A context's installed prelude: its helpers, and the host its functions call. */
export interface InstalledPrelude {
  helpers: PreludeHelpers;
  host: PreludeHost;
}

/**
 * Evaluates the prelude in `ctx` (a fresh context no script has used). Done when the engine
 * makes a spare instance after a run, while nobody waits (quickjs.ts), else by the run itself:
 * compiling and running the prelude was most of a run's fixed cost (~2 ms of `execute("1")`'s CPU
 * in a profile at load ~10). The host functions it installs call whatever `host` holds when they
 * are called, so the run that takes the instance binds them to itself.
 */
export function installPrelude(ctx: QuickJSContext, maxLogChars: number): InstalledPrelude {
  const host: PreludeHost = {};
  const prelude = ctx.unwrapResult(ctx.evalCode(GUEST_PRELUDE, "prelude.js", { type: "global" }));
  const log = ctx.newFunction("log", (level, text) => host.log?.(level, text));
  const invoke = ctx.newFunction(
    "invoke",
    (name, args) =>
      host.invoke
        ? host.invoke(name, args)
        : { error: ctx.newError("invoke() is only available while a script runs") },
  );
  const maxChars = ctx.newNumber(maxLogChars);
  const made = ctx.callFunction(prelude, ctx.undefined, log, invoke, maxChars);
  for (const h of [prelude, log, invoke, maxChars]) h.dispose();
  const helpers = ctx.unwrapResult(made);
  try {
    return {
      helpers: {
        resultJson: ctx.getProp(helpers, "resultJson"),
        describe: ctx.getProp(helpers, "describe"),
        makeError: ctx.getProp(helpers, "makeError"),
        settle: ctx.getProp(helpers, "settle"),
        fail: ctx.getProp(helpers, "fail"),
      },
      host,
    };
  } finally {
    helpers.dispose();
  }
}

/** Releases a prelude's helpers (before its context is disposed). */
export function disposePrelude({ helpers: h }: InstalledPrelude): void {
  for (const handle of [h.resultJson, h.describe, h.makeError, h.settle, h.fail]) handle.dispose();
}
