import assert from "node:assert/strict";
import { RemcpError } from "../../../src/errors.ts";
import { readBindOpcodes, readChainedFixups, readExportTrie } from "./_macho_dyld.ts";
import { ByteReader } from "./_reader.ts";

const SEGS = [
  { vmaddr: 0x100000000, fileoff: 0, filesize: 0x1000 },
  { vmaddr: 0x100001000, fileoff: 0x1000, filesize: 0x1000 },
];

Deno.test("readChainedFixups() walks a DYLD_CHAINED_PTR_64_OFFSET chain of a rebase and a bind", () => {
  const b = new Uint8Array(0x2000);
  const dv = new DataView(b.buffer);
  const h = 0x1800;
  dv.setUint32(h + 4, 0x20, true); // starts_offset
  dv.setUint32(h + 8, 0x60, true); // imports_offset
  dv.setUint32(h + 12, 0x70, true); // symbols_offset
  dv.setUint32(h + 16, 1, true); // imports_count
  dv.setUint32(h + 20, 1, true); // DYLD_CHAINED_IMPORT
  dv.setUint32(h + 0x20, 2, true); // seg_count
  dv.setUint32(h + 0x28, 0x10, true); // segment 1's starts, relative to starts_in_image
  const s = h + 0x30;
  dv.setUint16(s + 4, 0x1000, true); // page_size
  dv.setUint16(s + 6, 6, true); // DYLD_CHAINED_PTR_64_OFFSET
  dv.setBigUint64(s + 8, 0x1000n, true); // segment_offset
  dv.setUint16(s + 20, 1, true); // page_count
  dv.setUint16(s + 22, 0x10, true); // page_start[0]
  dv.setUint32(h + 0x60, 1 | (1 << 9), true); // lib 1, name at symbols+1
  b.set(new TextEncoder().encode("_puts\0"), h + 0x71);
  dv.setBigUint64(0x1010, 0x3f00n | (2n << 51n), true); // rebase, next 2×4 bytes
  dv.setBigUint64(0x1018, 1n << 63n, true); // bind import 0, end of chain
  const res = readChainedFixups(new ByteReader(b, true), h, 0x100, SEGS, 0x100000000);
  assert.deepEqual(res.imports, [{ name: "_puts", ordinal: 1 }]);
  assert.deepEqual(res.rebases, [{ address: 0x100001010, target: 0x100003f00 }]);
  assert.deepEqual(res.binds, [{ address: 0x100001018, import: 0 }]);
  assert.deepEqual(res.pointerFormats, [6]);
});

Deno.test("readBindOpcodes() expands DO_BIND_ULEB_TIMES_SKIPPING_ULEB", () => {
  const ops = [0x11, 0x40, ...new TextEncoder().encode("_x"), 0, 0x71, 0x10, 0xc0, 3, 8, 0x00];
  const out: { address: number; name: string; ordinal: number }[] = [];
  readBindOpcodes(new ByteReader(new Uint8Array(ops), true), 0, ops.length, false, SEGS, 8, out);
  assert.deepEqual(out.map((x) => x.address), [0x100001010, 0x100001020, 0x100001030]);
  assert.ok(out.every((x) => x.name === "_x" && x.ordinal === 1));
});

Deno.test("readExportTrie() reads entries and rejects a cycle", () => {
  // root: no terminal, one child "_a" at offset 6; node 6: terminal {flags 0, offset 0x10}.
  const good = new Uint8Array([0, 1, 0x5f, 0x61, 0, 6, 2, 0, 0x10, 0]);
  assert.deepEqual(readExportTrie(new ByteReader(good, true), 0, good.length), [
    { name: "_a", flags: 0, offset: 0x10 },
  ]);
  const cyclic = new Uint8Array([0, 1, 0x5f, 0x61, 0, 0]);
  assert.throws(
    () => readExportTrie(new ByteReader(cyclic, true), 0, cyclic.length),
    (e: unknown) => e instanceof RemcpError && e.code === "OpenFailed" && /cycle/.test(e.message),
  );
});
