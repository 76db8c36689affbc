/**
 * TypeScript declarations generated from the catalog's zod specs (through their JSON Schemas),
 * so `get_schema` and `search_tools` show how code inside `execute` calls a tool — never
 * hand-written.
 */
import type { z } from "zod";
import { inputJsonSchema, outputJsonSchema } from "../protocol/validate.ts";

type Json = Record<string, unknown>;

/** Renders a JSON Schema as a TypeScript type expression. */
export function tsType(schema: unknown, depth = 0): string {
  if (typeof schema !== "object" || schema === null) return "unknown";
  if (depth > 8) return "unknown";
  const s = schema as Json;
  if ("const" in s) return JSON.stringify(s.const);
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(" | ");
  const union = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (Array.isArray(union)) {
    return [...new Set(union.map((u) => tsType(u, depth + 1)))].join(" | ");
  }
  const type = s.type;
  if (Array.isArray(type)) return type.map((t) => tsType({ ...s, type: t }, depth + 1)).join(" | ");
  switch (type) {
    case "string":
      return "string";
    case "number":
    case "integer":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array": {
      const item = tsType(s.items, depth + 1);
      return /[ |]/.test(item) && !item.startsWith("{") ? `(${item})[]` : `${item}[]`;
    }
    case "object": {
      const props = (s.properties ?? {}) as Record<string, unknown>;
      const required = new Set((s.required ?? []) as string[]);
      const fields = Object.entries(props).map(([k, v]) => {
        const key = /^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k);
        return `${key}${required.has(k) ? "" : "?"}: ${tsType(v, depth + 1)}`;
      });
      const extra = s.additionalProperties;
      if (typeof extra === "object" && extra !== null && Object.keys(props).length === 0) {
        return `Record<string, ${tsType(extra, depth + 1)}>`;
      }
      if (fields.length === 0) return extra === false ? "{}" : "Record<string, unknown>";
      return `{${fields.join(", ")}}`;
    }
    default:
      return "unknown";
  }
}

/** `invoke("name", {…}): Promise<{…}>`, as code inside execute calls the tool. */
export function invokeSignature(name: string, input: z.ZodType, output: z.ZodType): string {
  const args = tsType(inputJsonSchema(input));
  const result = tsType(outputJsonSchema(output));
  return `invoke(${JSON.stringify(name)}, args: ${args}): Promise<${result}>`;
}

/** A short signature: parameter list only, for search results. */
export function briefSignature(name: string, input: z.ZodType): string {
  return `${name}(${tsType(inputJsonSchema(input))})`;
}
