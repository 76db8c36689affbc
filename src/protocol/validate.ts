/**
 * Argument checking at the boundary (docs/ARCHITECTURE.md): a missing, mistyped or undeclared argument is
 * `InvalidArgument` naming it and the accepted ones; `null` for an optional parameter is absent.
 */
import { z } from "zod";
import { RemcpError } from "../errors.ts";

/** Drops `null`-valued keys so that `null` means "absent" for optional parameters. */
export function dropNulls(args: unknown): unknown {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return args;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) if (v !== null) out[k] = v;
  return out;
}

/** Parses `args` with `schema`, or throws `InvalidArgument` naming what was wrong. */
export function parseArguments<S extends z.ZodObject>(
  tool: string,
  schema: S,
  args: unknown,
): z.output<S> {
  const input = args === undefined ? {} : dropNulls(args);
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const accepted = Object.keys(schema.shape);
  const issue = result.error.issues[0];
  let message: string;
  let param: string | undefined;
  if (!issue) {
    message = `Invalid arguments for ${tool}`;
  } else if (issue.code === "unrecognized_keys") {
    param = issue.keys[0];
    message = `${tool} has no parameter ${issue.keys.map((k) => `"${k}"`).join(", ")}`;
  } else if (typeof input !== "object" || input === null || Array.isArray(input)) {
    message = `${tool} takes an object of named arguments`;
  } else {
    param = issue.path.map(String).join(".");
    const given = issue.path.length > 0 ? valueAt(input, issue.path) : input;
    message = given === undefined
      ? `${tool} is missing the required parameter "${param}"`
      : `${tool} parameter "${param}" is invalid: ${issue.message}`;
  }
  const list = accepted.length > 0 ? accepted.join(", ") : "none";
  throw new RemcpError("InvalidArgument", `${message}; it accepts: ${list}`, {
    ...(param !== undefined ? { param } : {}),
    accepted,
  });
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let cur: unknown = value;
  for (const key of path) {
    if (typeof cur !== "object" || cur === null) return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur;
}

/** JSON Schema of a spec's input (what arguments are accepted). */
export function inputJsonSchema(schema: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
}

/** JSON Schema of a spec's output. */
export function outputJsonSchema(schema: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, { io: "output", unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
}
