/**
 * The file format of a script tool and the sandbox programs built from it.
 *
 * A tool file is JavaScript whose one `export default` (at the start of a line) is the tool
 * object: its spec fields plus `run(args, ctx)`. It is never evaluated by the host: the sandbox
 * runs it, once to read the spec as JSON and once per call to run it. The file becomes the body
 * of an async function (so top-level `await` and helper declarations work, and its names stay
 * local) with `export default` turned into an assignment; everything is added on the file's
 * first line, so line numbers in stack traces match the file.
 */
import { RemcpError } from "../errors.ts";
import type { GlobalValue } from "../sandbox/protocol.ts";

/** Largest tool file accepted. */
export const MAX_SOURCE_BYTES = 1024 * 1024;

/** The invoke name `ctx.progress` uses; the host answers it and never routes it to a tool. */
export const PROGRESS_INVOKE = "__remcp_progress";

const EXPORT_DEFAULT = /^export\s+default\s+/gm;
const OTHER_MODULE_SYNTAX = /^\s*(import\s*[\w{*"'(]|export\s+(?!default\b))/m;

// One line: everything the module needs before its own code.
const HEAD = `const __remcp_invoke = invoke; const __remcp_tool = await (async () => { ` +
  `let __remcp_default; `;
const TAIL = `\n;return __remcp_default; })();\n` +
  `if (__remcp_tool === null || typeof __remcp_tool !== "object" || Array.isArray(__remcp_tool)) ` +
  `{ throw new TypeError("export default must be the tool object: { name, description, input, ` +
  `run(args, ctx) { … } }"); }\n`;

/** Checks the module syntax and returns the file as the start of a sandbox program. */
export function moduleProgram(source: string): string {
  if (new TextEncoder().encode(source).length > MAX_SOURCE_BYTES) {
    throw new RemcpError("InvalidArgument", `A tool file is limited to ${MAX_SOURCE_BYTES} bytes`);
  }
  const exports = source.match(EXPORT_DEFAULT)?.length ?? 0;
  if (exports !== 1) {
    throw new RemcpError(
      "InvalidArgument",
      `A tool file needs exactly one \`export default { name, description, input, run }\` at ` +
        `the start of a line; found ${exports}`,
      { found: exports },
    );
  }
  const other = source.match(OTHER_MODULE_SYNTAX);
  if (other) {
    throw new RemcpError(
      "InvalidArgument",
      `A tool file cannot use imports or named exports (found "${other[0].trim()}"): the ` +
        "sandbox has no modules; keep helpers in the same file",
    );
  }
  return HEAD + source.replace(EXPORT_DEFAULT, "__remcp_default = ") + TAIL;
}

/** The spec fields a tool object may have besides `run`. */
export const SPEC_KEYS = [
  "name",
  "description",
  "input",
  "output",
  "annotations",
  "scope",
  "pinned",
  "timeout_s",
  "tags",
] as const;

/** A program whose result is `{keys, hasRun, spec}`: the tool object's spec as JSON. */
export function specProgram(source: string): string {
  const picks = SPEC_KEYS.map((k) => `${k}: __remcp_tool.${k}`).join(", ");
  return moduleProgram(source) +
    `({ keys: Object.keys(__remcp_tool), hasRun: typeof __remcp_tool.run === "function", ` +
    `spec: JSON.parse(JSON.stringify({ ${picks} })) })\n`;
}

/**
 * A program that calls `run(args, ctx)` and returns `{ok: true, value, warnings}`, or
 * `{ok: false, code, message, detail}` for a thrown value with a string `code`. Anything else
 * thrown propagates (the sandbox reports it as `SandboxError`).
 */
export function runProgram(source: string): string {
  return moduleProgram(source) + RUN_DRIVER;
}

const RUN_DRIVER = String.raw`
const __remcp_warnings = [];
const __remcp_ctx = Object.freeze({
  database: typeof database === "string" ? database : null,
  invoke: (name, args) => __remcp_invoke(name, args),
  warn(code, message) {
    if (__remcp_warnings.length < 100) {
      __remcp_warnings.push({ code: String(code), message: String(message) });
    }
  },
  progress(done, total, message) {
    const args = { done: Number(done) };
    if (total !== undefined && total !== null) args.total = Number(total);
    if (message !== undefined && message !== null) args.message = String(message);
    __remcp_invoke("${PROGRESS_INVOKE}", args).catch(() => {});
  },
});
let __remcp_out;
try {
  __remcp_out = { ok: true, value: await __remcp_tool.run(JSON.parse(__remcp_args), __remcp_ctx) };
} catch (e) {
  if (e === null || typeof e !== "object" || typeof e.code !== "string") throw e;
  let detail = {};
  try {
    const d = JSON.parse(JSON.stringify(e.detail ?? {}));
    if (d !== null && typeof d === "object" && !Array.isArray(d)) detail = d;
  } catch (_) {
    // A detail that is not JSON is left out.
  }
  __remcp_out = { ok: false, code: e.code, message: String(e.message), detail };
}
if (__remcp_out.ok) __remcp_out.warnings = __remcp_warnings;
__remcp_out
`;

/** The globals of a run: the arguments as JSON text and the database, when there is one. */
export function runGlobals(
  args: Record<string, unknown>,
  database: string | undefined,
): Record<string, GlobalValue> {
  const globals: Record<string, GlobalValue> = { __remcp_args: JSON.stringify(args) };
  if (database !== undefined) globals.database = database;
  return globals;
}
