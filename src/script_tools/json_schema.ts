/**
 * The JSON Schema subset a script tool may declare, turned into zod once at load time so that
 * script tools are checked, listed and typed by the same code as built-in tools.
 *
 * Accepted: `type` (object, string, number, integer, boolean, array, null, or `[T, "null"]`),
 * `properties`, `required`, `additionalProperties: false`, `enum`, `minimum`/`maximum`,
 * `minLength`/`maxLength`, `items`, `minItems`/`maxItems`, `format: "address"`, and the
 * annotations `description`, `title`, `default`, `examples`, `$comment`. Anything else is refused
 * with the path of the offending keyword. `pattern` is refused on purpose: a regex from an
 * untrusted script would run in the host, where a catastrophic one stalls everything.
 */
import { z } from "zod";
import { Address } from "../protocol/params.ts";

type Json = Record<string, unknown>;

const TYPES = ["object", "string", "number", "integer", "boolean", "array", "null"] as const;
type TypeName = typeof TYPES[number];

const ANNOTATION_KEYS = ["type", "description", "title", "default", "examples", "$comment"];
const KEYS: Record<TypeName, readonly string[]> = {
  object: ["properties", "required", "additionalProperties"],
  string: ["enum", "minLength", "maxLength", "format"],
  number: ["enum", "minimum", "maximum"],
  integer: ["enum", "minimum", "maximum"],
  boolean: ["enum"],
  array: ["items", "minItems", "maxItems"],
  null: [],
};

/** Where an address parameter sits: a top-level property, or the items of one. */
export interface AddressParam {
  name: string;
  array: boolean;
}

/** A converted input schema. */
export interface ConvertedInput {
  schema: z.ZodObject;
  addresses: AddressParam[];
}

/** A schema outside the subset; the message names the path and what to do. */
export class SchemaError extends Error {
  constructor(path: string, problem: string) {
    super(`${path}: ${problem}`);
    this.name = "SchemaError";
  }
}

interface Walk {
  /** Whether `format: "address"` is allowed here. */
  address: boolean;
  /** Output schemas accept undeclared object keys unless told otherwise. */
  output: boolean;
  depth: number;
}

/**
 * Converts a tool's input schema: an object whose undeclared arguments are refused. `reserved`
 * names properties remcp adds itself (such as `database`).
 */
export function convertInput(schema: unknown, reserved: readonly string[]): ConvertedInput {
  const root = objectRoot(schema, "input");
  if (root.additionalProperties !== undefined && root.additionalProperties !== false) {
    throw new SchemaError(
      "input.additionalProperties",
      "a tool's arguments are always closed; leave it out or set it to false",
    );
  }
  const props = properties(root, "input");
  const required = requiredList(root, "input", props);
  const addresses: AddressParam[] = [];
  const shape: Record<string, z.ZodType> = {};
  for (const [name, sub] of Object.entries(props)) {
    const where = `input.properties.${name}`;
    if (reserved.includes(name)) {
      throw new SchemaError(where, `"${name}" is reserved: remcp adds it itself`);
    }
    if (isAddress(sub)) addresses.push({ name, array: false });
    else if (isObj(sub) && sub.type === "array" && isAddress(sub.items)) {
      addresses.push({ name, array: true });
    }
    const walk = { address: true, output: false, depth: 1 };
    shape[name] = property(sub, where, walk, required.has(name));
  }
  return { schema: z.strictObject(shape), addresses };
}

/** Converts a tool's output schema (an object; undeclared keys are allowed unless closed). */
export function convertOutput(schema: unknown): z.ZodObject {
  const root = objectRoot(schema, "output");
  return toZod(root, "output", { address: false, output: true, depth: 0 }) as z.ZodObject;
}

function objectRoot(schema: unknown, where: string): Json {
  if (!isObj(schema)) throw new SchemaError(where, "must be a JSON Schema object");
  if (schema.type !== "object") {
    throw new SchemaError(`${where}.type`, 'must be "object": a tool takes and returns objects');
  }
  return schema;
}

function property(sub: unknown, where: string, walk: Walk, required: boolean): z.ZodType {
  let t = toZod(sub, where, walk);
  const s = sub as Json;
  if ("default" in s) {
    if (required) throw new SchemaError(`${where}.default`, "a required parameter has no default");
    const checked = t.safeParse(s.default);
    if (!checked.success) {
      throw new SchemaError(`${where}.default`, "does not match the parameter's own schema");
    }
    return (t as z.ZodType<unknown>).default(checked.data);
  }
  if (!required) t = t.optional();
  return t;
}

function toZod(schema: unknown, where: string, walk: Walk): z.ZodType {
  if (walk.depth > 16) throw new SchemaError(where, "is nested too deeply (16 levels at most)");
  if (!isObj(schema)) throw new SchemaError(where, "must be a JSON Schema object");
  const { base, nullable } = typeOf(schema, where);
  for (const key of Object.keys(schema)) {
    if (!ANNOTATION_KEYS.includes(key) && !KEYS[base].includes(key)) {
      throw new SchemaError(
        `${where}.${key}`,
        `is not supported for type "${base}"; supported: ${
          [...KEYS[base], ...ANNOTATION_KEYS.slice(1)].join(", ")
        }`,
      );
    }
  }
  let t = build(schema, base, where, walk);
  if (nullable) t = t.nullable();
  if (typeof schema.description === "string") t = t.describe(schema.description);
  return t;
}

function typeOf(s: Json, where: string): { base: TypeName; nullable: boolean } {
  const t = s.type;
  if (typeof t === "string" && isType(t)) return { base: t, nullable: false };
  if (Array.isArray(t) && t.length === 2 && t.includes("null")) {
    const other = t.find((x) => x !== "null");
    if (typeof other === "string" && isType(other) && other !== "null") {
      return { base: other, nullable: true };
    }
  }
  throw new SchemaError(
    `${where}.type`,
    `must be one of ${TYPES.join(", ")}, or [type, "null"]; got ${JSON.stringify(t) ?? "none"}`,
  );
}

function build(s: Json, base: TypeName, where: string, walk: Walk): z.ZodType {
  switch (base) {
    case "string": {
      if (s.format !== undefined) {
        if (s.format !== "address") {
          throw new SchemaError(`${where}.format`, 'only "address" is supported');
        }
        if (!walk.address) {
          throw new SchemaError(
            `${where}.format`,
            '"address" is allowed only on a top-level input parameter or the items of one',
          );
        }
        if (s.enum !== undefined || s.minLength !== undefined || s.maxLength !== undefined) {
          throw new SchemaError(where, "an address parameter takes no enum or length bounds");
        }
        return Address;
      }
      if (s.enum !== undefined) return enumOf(s.enum, where, "string");
      let t = z.string();
      const min = count(s.minLength, `${where}.minLength`);
      const max = count(s.maxLength, `${where}.maxLength`);
      if (min !== undefined) t = t.min(min);
      if (max !== undefined) t = t.max(max);
      return t;
    }
    case "number":
    case "integer": {
      if (s.enum !== undefined) return enumOf(s.enum, where, "number");
      let t = base === "integer" ? z.number().int() : z.number();
      const min = num(s.minimum, `${where}.minimum`);
      const max = num(s.maximum, `${where}.maximum`);
      if (min !== undefined) t = t.min(min);
      if (max !== undefined) t = t.max(max);
      return t;
    }
    case "boolean":
      return s.enum !== undefined ? enumOf(s.enum, where, "boolean") : z.boolean();
    case "null":
      return z.null();
    case "array": {
      const itemWalk = {
        ...walk,
        depth: walk.depth + 1,
        address: walk.address && walk.depth === 1,
      };
      let t = z.array(
        s.items === undefined ? z.unknown() : toZod(s.items, `${where}.items`, itemWalk),
      );
      const min = count(s.minItems, `${where}.minItems`);
      const max = count(s.maxItems, `${where}.maxItems`);
      if (min !== undefined) t = t.min(min);
      if (max !== undefined) t = t.max(max);
      return t;
    }
    case "object": {
      const props = properties(s, where);
      const required = requiredList(s, where, props);
      const inner = { ...walk, depth: walk.depth + 1, address: false };
      const shape: Record<string, z.ZodType> = {};
      for (const [name, sub] of Object.entries(props)) {
        shape[name] = property(sub, `${where}.properties.${name}`, inner, required.has(name));
      }
      const extra = s.additionalProperties;
      if (extra !== undefined && typeof extra !== "boolean") {
        throw new SchemaError(`${where}.additionalProperties`, "must be true or false");
      }
      if (extra === false) return z.strictObject(shape);
      return walk.output || extra === true ? z.looseObject(shape) : z.object(shape);
    }
  }
}

function properties(s: Json, where: string): Record<string, unknown> {
  const p = s.properties ?? {};
  if (!isObj(p)) throw new SchemaError(`${where}.properties`, "must be an object of schemas");
  const names = Object.keys(p);
  if (names.length > 100) throw new SchemaError(`${where}.properties`, "has over 100 entries");
  for (const name of names) {
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(name)) {
      throw new SchemaError(
        `${where}.properties`,
        `"${name}" is not a parameter name (letters, digits and _, up to 64)`,
      );
    }
  }
  return p;
}

function requiredList(s: Json, where: string, props: Record<string, unknown>): Set<string> {
  const r = s.required ?? [];
  if (!Array.isArray(r) || !r.every((x) => typeof x === "string")) {
    throw new SchemaError(`${where}.required`, "must be an array of property names");
  }
  for (const name of r) {
    if (!(name in props)) {
      throw new SchemaError(`${where}.required`, `"${name}" is not in properties`);
    }
  }
  return new Set(r);
}

function enumOf(values: unknown, where: string, kind: "string" | "number" | "boolean"): z.ZodType {
  if (!Array.isArray(values) || values.length === 0 || values.length > 1000) {
    throw new SchemaError(`${where}.enum`, "must be a non-empty array (1000 values at most)");
  }
  const typeOfValue = (v: unknown): string => typeof v;
  if (!values.every((v) => typeOfValue(v) === kind)) {
    throw new SchemaError(`${where}.enum`, `every value must be a ${kind}`);
  }
  const literals = values.map((v) => z.literal(v as string | number | boolean));
  return literals.length === 1 ? literals[0]! : z.union(literals);
}

function count(v: unknown, where: string): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0) {
    throw new SchemaError(where, "must be a non-negative integer");
  }
  return v;
}

function num(v: unknown, where: string): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== "number" || !Number.isFinite(v)) {
    throw new SchemaError(where, "must be a number");
  }
  return v;
}

function isAddress(s: unknown): boolean {
  return isObj(s) && s.type === "string" && s.format === "address";
}

function isType(t: string): t is TypeName {
  return (TYPES as readonly string[]).includes(t);
}

function isObj(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
