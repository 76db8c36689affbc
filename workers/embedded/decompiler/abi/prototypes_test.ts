import assert from "node:assert/strict";
import { parsePrototype } from "./prototype.ts";
import { builtinDeclarations, builtinPrototypes, prototypeKey } from "./prototypes.ts";

Deno.test("builtinPrototypes() finds every declaration by the name its parse gives", () => {
  const table = builtinPrototypes();
  const decls = builtinDeclarations();
  assert.ok(decls.length >= 300, `${decls.length} declarations`);
  for (const text of decls) {
    const p = parsePrototype(text);
    assert.ok(table.has(p.name), `${p.name} is not indexed`);
    assert.deepEqual(table.get(p.name), p);
  }
});

Deno.test("builtinPrototypes() answers names it does not have with undefined", () => {
  const table = builtinPrototypes();
  assert.equal(table.has("no_such_function"), false);
  assert.equal(table.get("no_such_function"), undefined);
  assert.equal(table.get(prototypeKey("printf@plt"))?.variadic, true);
});
