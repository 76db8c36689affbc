import assert from "node:assert/strict";
import { z } from "zod";
import { RemcpError } from "../errors.ts";
import { parseArguments } from "./validate.ts";

const schema = z.strictObject({ address: z.string(), count: z.number().int().optional() });

function fails(args: unknown, pattern: RegExp) {
  assert.throws(() => parseArguments("disassemble", schema, args), (e: unknown) => {
    assert.ok(e instanceof RemcpError);
    assert.equal(e.code, "InvalidArgument");
    assert.match(e.message, pattern);
    assert.match(e.message, /accepts: address, count/);
    return true;
  });
}

Deno.test("parseArguments() names a missing parameter", () => fails({}, /missing.*"address"/));
Deno.test("parseArguments() names a mistyped parameter", () => {
  fails({ address: "main", count: "x" }, /"count" is invalid/);
});
Deno.test("parseArguments() names an undeclared parameter", () => {
  fails({ address: "main", cuont: 3 }, /no parameter "cuont"/);
});
Deno.test("parseArguments() treats null as absent", () => {
  assert.deepEqual(parseArguments("d", schema, { address: "a", count: null }), { address: "a" });
});
