/**
 * Calls a script tool: resolves its database and address arguments, runs its file in the
 * `execute` sandbox with the same limits, and turns what `run` returned or threw into a result
 * or a typed error.
 */
import { type ErrorDetail, isErrorCode, RemcpError } from "../errors.ts";
import { resultError, resultJson } from "../protocol/results.ts";
import { JsonText } from "../sandbox/pool.ts";
import type { CallContext, Host, LocalHandler } from "../supervisor/host.ts";
import { PROGRESS_INVOKE, runGlobals, runProgram } from "./source.ts";
import type { ScriptToolDef } from "./spec.ts";

/** Largest result the sandbox hands back; the output cap then applies as for any tool. */
const MAX_RESULT_BYTES = 16 * 1024 * 1024;

/** The handler the supervisor calls with checked arguments. */
export function scriptToolHandler(def: ScriptToolDef): LocalHandler {
  const program = runProgram(def.source);
  return async (sup, args, ctx) => {
    const name = def.spec.name;
    const a = { ...args };
    let database: string | undefined;
    if (def.scope === "database") {
      const db = sup.pool.resolve(
        typeof a.database === "string" ? a.database : undefined,
        ctx.session,
      );
      sup.pool.checkAlive(db);
      database = db.id;
      delete a.database;
      await resolveAddresses(sup, ctx, def, a, database);
    }
    const inner: CallContext = { ...ctx, via: "script" };
    const r = await sup.sandbox().run(program, {
      globals: runGlobals(a, database),
      timeoutMs: def.timeoutMs,
      signal: ctx.signal,
      limits: { cpuMs: def.timeoutMs, maxOutputBytes: MAX_RESULT_BYTES },
      // Console output of a tool is for its author: it goes to the log, not into results.
      onLog: (_level, text) => sup.log.debug(`${name}: ${text.trimEnd()}`),
      invoke: async (tool, invokeArgs, signal) => {
        if (tool === PROGRESS_INVOKE) {
          const p = invokeArgs as { done?: number; total?: number; message?: string };
          ctx.progress(Number(p.done) || 0, p.total, p.message);
          return {};
        }
        const callArgs = { ...invokeArgs };
        const entry = sup.find(tool);
        if (
          database !== undefined && callArgs.database === undefined && entry &&
          "database" in sup.routedInput(entry).shape
        ) {
          callArgs.database = database;
        }
        const result = await sup.callTool(tool, callArgs, { ...inner, signal });
        return new JsonText(resultJson(result, tool));
      },
    });
    if (!r.ok) {
      const detail: ErrorDetail = { ...r.error.detail, tool: name };
      if (r.logs) detail.logs = r.logs.slice(-4096);
      throw new RemcpError(r.error.code, `${name}: ${r.error.message}`, detail);
    }
    return outcome(name, def, r.result);
  };
}

/** Replaces each address argument by its `0x…` form, resolved in `database`. */
async function resolveAddresses(
  sup: Host,
  ctx: CallContext,
  def: ScriptToolDef,
  args: Record<string, unknown>,
  database: string,
): Promise<void> {
  const resolve = async (param: string, value: unknown): Promise<string> => {
    const r = await sup.callTool("resolve_address", { address: value, database }, {
      ...ctx,
      via: "script",
    });
    if (r.isError) {
      const e = resultError(r, "resolve_address");
      throw new RemcpError(
        e.code,
        `${def.spec.name} parameter "${param}": ${e.message}`,
        { ...e.detail, param },
      );
    }
    return String(r.structuredContent?.address);
  };
  for (const { name, array } of def.addresses) {
    const v = args[name];
    if (v === undefined) continue;
    args[name] = array && Array.isArray(v)
      ? await Promise.all(v.map((x, i) => resolve(`${name}[${i}]`, x)))
      : await resolve(name, v);
  }
}

/** What the run program returned, as a tool result object (or the typed error it threw). */
function outcome(name: string, def: ScriptToolDef, result: unknown): Record<string, unknown> {
  const r = result as Record<string, unknown>;
  if (r.ok !== true) {
    const code = r.code;
    const message = typeof r.message === "string" ? r.message : "";
    const detail = (r.detail ?? {}) as ErrorDetail;
    if (isErrorCode(code)) throw new RemcpError(code, message, detail);
    throw new RemcpError(
      "SandboxError",
      `${name} threw an error with code "${String(code)}", which is not an error type: ` +
        message,
      { tool: name, code: String(code), error_detail: detail },
    );
  }
  const value = r.value;
  let out: Record<string, unknown>;
  if (Array.isArray(value)) out = { items: value };
  else if (typeof value === "object" && value !== null) out = { ...value as object };
  else out = value === undefined ? {} : { result: value };
  const warnings = Array.isArray(r.warnings) ? r.warnings : [];
  if (warnings.length > 0) {
    out.warnings = [...(Array.isArray(out.warnings) ? out.warnings : []), ...warnings];
  }
  const checked = def.spec.output.safeParse(out);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    const at = issue?.path.map(String).join(".") || "(root)";
    throw new RemcpError(
      "SandboxError",
      `${name} returned a result that does not match its output schema: ${at}: ` +
        `${issue?.message ?? "invalid"}; fix the tool's run() or its output schema`,
      { tool: name, path: at },
    );
  }
  return out;
}
