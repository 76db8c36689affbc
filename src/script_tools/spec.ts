/**
 * A script tool's declared spec, as the sandbox reported it, checked and turned into the
 * catalog's {@link ToolSpec} shape (zod input and output) plus what the runner needs.
 */
import { z } from "zod";
import { RemcpError } from "../errors.ts";
import type { Annotations, ToolSpec } from "../protocol/catalog/spec.ts";
import { CommonOutput } from "../protocol/params.ts";
import { MAX_EXECUTE_SECONDS } from "../sandbox/limits.ts";
import { type AddressParam, convertInput, convertOutput, SchemaError } from "./json_schema.ts";
import { SPEC_KEYS } from "./source.ts";

/** Name rule: 1–64 of `[A-Za-z0-9_-]`, not starting with `_` (reserved for internal tools). */
export const NAME_PATTERN = /^[A-Za-z0-9-][A-Za-z0-9_-]{0,63}$/;

/** Default wall-clock limit of one call, in seconds. */
export const DEFAULT_TIMEOUT_S = 60;

/** Annotation defaults: may modify, not destructive, not idempotent, closed world. */
export const DEFAULT_ANNOTATIONS: Readonly<Annotations> = Object.freeze({
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
});

const DATABASE_PARAM = z.string().min(1).max(128).optional().describe(
  "Database id from open_database (optional when exactly one is open)",
);

const rawSpec = z.strictObject({
  name: z.string().regex(NAME_PATTERN, "1–64 of A-Z a-z 0-9 _ -, not starting with _"),
  description: z.string().min(1).max(8000),
  input: z.unknown(),
  output: z.unknown().optional(),
  annotations: z.strictObject({
    readOnlyHint: z.boolean().optional(),
    destructiveHint: z.boolean().optional(),
    idempotentHint: z.boolean().optional(),
    openWorldHint: z.boolean().optional(),
  }).optional(),
  scope: z.enum(["database", "global"]).optional(),
  pinned: z.boolean().optional(),
  timeout_s: z.number().positive().max(MAX_EXECUTE_SECONDS).optional(),
  tags: z.array(z.string().min(1).max(40)).max(10).optional(),
});

/** What the spec program returns. */
const extracted = z.object({
  keys: z.array(z.string()),
  hasRun: z.boolean(),
  spec: z.record(z.string(), z.unknown()),
});

/** A loaded script tool. */
export interface ScriptToolDef {
  spec: ToolSpec;
  scope: "database" | "global";
  timeoutMs: number;
  addresses: AddressParam[];
  /** The file's text, run again on every call. */
  source: string;
  /** Where it came from: a file path, or "define_tool". */
  origin: string;
  /** The JSON Schemas as declared (for `list_script_tools`). */
  declared: { input: unknown; output: unknown };
}

/**
 * Checks what the spec program returned.
 *
 * @throws {RemcpError} InvalidArgument saying what is wrong with the spec
 */
export function checkSpec(result: unknown, source: string, origin: string): ScriptToolDef {
  const got = extracted.safeParse(result);
  if (!got.success) {
    throw new RemcpError("InvalidArgument", "The tool file did not evaluate to a tool object");
  }
  const unknownKeys = got.data.keys.filter((k) => k !== "run" && !includes(SPEC_KEYS, k));
  if (unknownKeys.length > 0) {
    throw invalid(
      `unknown field${unknownKeys.length > 1 ? "s" : ""} ${unknownKeys.join(", ")}; a tool ` +
        `has ${SPEC_KEYS.join(", ")} and run`,
    );
  }
  if (!got.data.hasRun) throw invalid("run(args, ctx) must be a function");
  const raw = rawSpec.safeParse(dropUndefined(got.data.spec));
  if (!raw.success) {
    const issue = raw.error.issues[0];
    const at = issue?.path.map(String).join(".") || "spec";
    throw invalid(`${at}: ${issue?.message ?? "invalid"}`);
  }
  const s = raw.data;
  const scope = s.scope ?? "database";
  let input: z.ZodObject;
  let output: z.ZodObject;
  let addresses: AddressParam[];
  try {
    const converted = convertInput(s.input, scope === "database" ? ["database"] : []);
    addresses = converted.addresses;
    input = scope === "database"
      ? z.strictObject({ ...converted.schema.shape, database: DATABASE_PARAM })
      : converted.schema;
    output = s.output === undefined
      ? z.looseObject({ ...CommonOutput })
      : convertOutput(s.output).extend({ ...CommonOutput });
  } catch (err) {
    if (err instanceof SchemaError) throw invalid(`schema ${err.message}`);
    throw err;
  }
  if (scope === "global" && addresses.length > 0) {
    throw invalid('address parameters need scope "database" to be resolved');
  }
  const spec: ToolSpec = {
    name: s.name,
    description: s.description,
    input,
    output,
    annotations: {
      readOnlyHint: s.annotations?.readOnlyHint ?? DEFAULT_ANNOTATIONS.readOnlyHint,
      destructiveHint: s.annotations?.destructiveHint ?? DEFAULT_ANNOTATIONS.destructiveHint,
      idempotentHint: s.annotations?.idempotentHint ?? DEFAULT_ANNOTATIONS.idempotentHint,
      openWorldHint: s.annotations?.openWorldHint ?? DEFAULT_ANNOTATIONS.openWorldHint,
    },
    tags: ["script", ...(s.tags ?? [])],
    ...(s.pinned ? { pinned: true } : {}),
  };
  return {
    spec,
    scope,
    timeoutMs: Math.round((s.timeout_s ?? DEFAULT_TIMEOUT_S) * 1000),
    addresses,
    source,
    origin,
    declared: { input: s.input, output: s.output ?? null },
  };
}

function invalid(problem: string): RemcpError {
  return new RemcpError("InvalidArgument", `Invalid tool spec: ${problem}`, {});
}

function includes(list: readonly string[], key: string): boolean {
  return list.includes(key);
}

function dropUndefined(spec: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(spec).filter(([, v]) => v !== undefined && v !== null));
}
