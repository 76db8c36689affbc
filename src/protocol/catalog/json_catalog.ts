/**
 * The JSON catalog a Python worker loads (docs/ARCHITECTURE.md): every tool's name, description, input
 * and output JSON Schemas and annotations, generated from the zod specs so that Python workers
 * answer with the same names, parameters and result shapes as the TypeScript ones.
 */
import { ERROR_CODES } from "../../errors.ts";
import { DEFAULT_LIMIT, MAX_LIMIT } from "../paging.ts";
import { inputJsonSchema, outputJsonSchema } from "../validate.ts";
import type { Annotations, ToolSpec } from "./spec.ts";

/** One tool as the JSON catalog describes it. */
export interface JsonTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  annotations: Annotations;
  tags: readonly string[];
  capability?: string;
}

/** The whole document: tools plus the constants the Python runtime shares with TypeScript. */
export interface JsonCatalog {
  format: "remcp-catalog";
  version: string;
  error_codes: readonly string[];
  default_limit: number;
  max_limit: number;
  tools: JsonTool[];
}

/** Builds the catalog document for `specs` (in their order). */
export function jsonCatalog(specs: readonly ToolSpec[], version: string): JsonCatalog {
  return {
    format: "remcp-catalog",
    version,
    error_codes: ERROR_CODES,
    default_limit: DEFAULT_LIMIT,
    max_limit: MAX_LIMIT,
    tools: specs.map((spec) => ({
      name: spec.name,
      description: spec.description,
      inputSchema: inputJsonSchema(spec.input),
      outputSchema: outputJsonSchema(spec.output),
      annotations: spec.annotations,
      tags: spec.tags,
      ...(spec.capability ? { capability: spec.capability } : {}),
    })),
  };
}
