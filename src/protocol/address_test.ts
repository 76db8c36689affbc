import assert from "node:assert/strict";
import { RemcpError } from "../errors.ts";
import { type NameResolver, parseAddress } from "./address.ts";

const names: NameResolver = {
  lookup: (n) => ({ main: 0x1000, add: 0x2000, ".text": 0x400, "std::foo": 0x3000 })[n],
  suggest: (n) => ["main", "add"].filter((c) => c.startsWith(n[0] ?? "")),
};

Deno.test("parseAddress() reads 0x hex and decimal before names", () => {
  assert.equal(parseAddress("0x10", names), 16);
  assert.equal(parseAddress("4096", names), 4096);
  assert.equal(parseAddress(77, names), 77);
});

Deno.test("parseAddress() prefers a name over bare hex", () => {
  assert.equal(parseAddress("add", names), 0x2000);
  assert.equal(parseAddress("dead", names), 0xdead);
});

Deno.test("parseAddress() resolves name+offset and section expressions", () => {
  assert.equal(parseAddress("main+0x10", names), 0x1010);
  assert.equal(parseAddress(".text+32", names), 0x420);
  assert.equal(parseAddress("main - 0x8", names), 0xff8);
  assert.equal(parseAddress("std::foo+1", names), 0x3001);
  assert.equal(parseAddress("main+0x10+0x1", names), 0x1011);
});

Deno.test("parseAddress() names the unknown symbol and suggests near ones", () => {
  assert.throws(() => parseAddress("mian", names), (err: unknown) => {
    assert.ok(err instanceof RemcpError);
    assert.equal(err.code, "InvalidAddress");
    assert.match(err.message, /"mian"/);
    assert.match(err.message, /did you mean main/);
    return true;
  });
});

Deno.test("parseAddress() refuses values beyond 2^53 and negative results", () => {
  assert.throws(() => parseAddress("0xffffffffffffffff", names), RemcpError);
  assert.throws(() => parseAddress("main-0x2000", names), RemcpError);
  assert.throws(() => parseAddress(-1, names), RemcpError);
});

Deno.test("parseAddress() refuses sub_/loc_ names at or above 2^53 instead of rounding", () => {
  // The resolver answers as the embedded analysis does: the hex digits of an auto name, parsed.
  const auto: NameResolver = {
    lookup: (n) => {
      const m = /^(?:sub|loc)_([0-9a-f]+)$/i.exec(n);
      return m ? Number.parseInt(m[1]!, 16) : undefined;
    },
  };
  assert.equal(parseAddress("sub_1fffffffffffff", auto), 2 ** 53 - 1);
  for (const name of ["sub_20000000000001", "loc_20000000000000", "sub_20000000000001+4"]) {
    assert.throws(() => parseAddress(name, auto), (err: unknown) => {
      assert.ok(err instanceof RemcpError);
      assert.equal(err.code, "InvalidAddress");
      assert.match(err.message, /too large for remcp \(≥ 2\^53\)/);
      return true;
    }, name);
  }
});
