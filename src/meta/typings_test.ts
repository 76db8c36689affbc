import assert from "node:assert/strict";
import { z } from "zod";
import { invokeSignature } from "./typings.ts";

Deno.test("invokeSignature() renders optional fields, arrays, enums and unions", () => {
  const sig = invokeSignature(
    "list_functions",
    z.strictObject({ filter: z.string().optional(), limit: z.number().int().optional() }),
    z.object({
      items: z.array(z.object({ name: z.string(), start: z.string() })),
      kind: z.enum(["a", "b"]),
      v: z.union([z.number(), z.string()]).nullable(),
    }),
  );
  assert.equal(
    sig,
    'invoke("list_functions", args: {filter?: string, limit?: number}): Promise<{items: ' +
      '{name: string, start: string}[], kind: "a" | "b", v: number | string | null}>',
  );
});
