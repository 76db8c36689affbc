import assert from "node:assert/strict";
import { loadIced } from "./_iced_wasm.ts";
import { ICED_REGISTER_NAMES } from "./_iced_operands.ts";

Deno.test("the register table names every iced register as iced's Intel formatter does", async () => {
  const rt = await loadIced();
  const ret = rt.pushSlot();
  try {
    rt.wasm.formatter_new(ret, 1);
    rt.check(ret, 2);
    const formatter = rt.i32(ret) >>> 0;
    const names: string[] = [];
    for (let register = 0;; register++) {
      try {
        rt.wasm.formatter_formatRegister(ret, formatter, register);
      } catch {
        break; // past the last register of the enum
      }
      names.push(rt.takeString(ret));
    }
    // The formatter is not freed: the call that went past the enum left it borrowed (a fresh
    // module per test, dropped with it).
    assert.deepEqual(ICED_REGISTER_NAMES, names);
  } finally {
    rt.popSlot();
  }
});
