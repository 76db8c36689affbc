/**
 * The shape of a tool spec (docs/ARCHITECTURE.md): the one definition every backend implements and from
 * which JSON Schemas, `get_schema` declarations and the README table are derived.
 */
import type { z } from "zod";

/** MCP tool annotations, every hint stated. */
export interface Annotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** Reads the database and changes nothing. */
export const READ_ONLY: Annotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
/** Changes annotations in the database (names, comments); undoable, repeatable. */
export const ANNOTATE: Annotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
/** Changes state in a way that is not repeatable (undo/redo, opening, closing). */
export const STATEFUL: Annotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};
/** Overwrites bytes or files. */
export const DESTRUCTIVE: Annotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: false,
};
/** Runs arbitrary engine code or reaches outside the database. */
export const OPEN_WORLD: Annotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
};

/** A capability a tool needs before it is listed or callable. */
export type Capability = "write" | "scripts";

/** A tool's definition, shared by every backend. */
export interface ToolSpec<
  I extends z.ZodObject = z.ZodObject,
  O extends z.ZodObject = z.ZodObject,
> {
  name: string;
  /** Written for the model: what it returns, when to use it, paging, limits. First line is the summary. */
  description: string;
  input: I;
  output: O;
  annotations: Annotations;
  tags: readonly string[];
  /** Listed by default (otherwise reachable through search_tools/call/batch/execute). */
  pinned?: boolean;
  capability?: Capability;
}

/** Declares a spec with its zod types kept precise. */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(
  spec: ToolSpec<I, O>,
): ToolSpec<I, O> {
  return spec;
}

/** The first line of a description. */
export function summaryOf(spec: { description: string }): string {
  const nl = spec.description.indexOf("\n");
  return nl === -1 ? spec.description : spec.description.slice(0, nl);
}
