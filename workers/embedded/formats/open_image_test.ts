import assert from "node:assert/strict";
import { RemcpError } from "../../../src/errors.ts";
import { detectFormat, openImage } from "./open_image.ts";
import { fixture } from "./_testing.ts";

Deno.test("openImage() detects each format by magic", () => {
  for (
    const [name, format] of [
      ["elf_x86_64_gcc_O2", "elf"],
      ["pe_x86_64_O2.exe", "pe"],
      ["macho_arm64", "macho"],
    ] as const
  ) {
    const f = fixture(name, "detect");
    if (!f) continue;
    assert.equal(openImage(f.bytes).format, format);
  }
});

Deno.test("openImage() on an unknown format says how to open it as a raw blob", () => {
  const blob = new Uint8Array([0x90, 0x90, 0xc3, 0, 1, 2, 3, 4]);
  assert.equal(detectFormat(blob), undefined);
  assert.throws(() => openImage(blob), (e: unknown) => {
    assert.ok(e instanceof RemcpError);
    assert.equal(e.code, "OpenFailed");
    assert.match(e.message, /options: \{arch, base\}/);
    return true;
  });
  const img = openImage(blob, { arch: "x86_64", base: 0x400000 });
  assert.equal(img.format, "raw");
  assert.equal(img.entry, 0x400000);
});

Deno.test("openImage() with raw: true maps even a recognised file as a blob", () => {
  const f = fixture("elf_x86_64_gcc_O2", "raw option");
  if (!f) return;
  const img = openImage(f.bytes, { raw: true, arch: "x86_64", base: 0 });
  assert.equal(img.format, "raw");
  assert.equal(img.read(0, 4)?.[1], 0x45);
});

Deno.test("openImage() on truncated headers throws OpenFailed naming an offset", () => {
  const f = fixture("pe_x86_64_O2.exe", "truncated");
  if (!f) return;
  assert.throws(() => openImage(f.bytes.subarray(0, 0x90)), (e: unknown) => {
    assert.ok(e instanceof RemcpError);
    assert.equal(e.code, "OpenFailed");
    assert.match(e.message, /at offset 0x[0-9a-f]+/);
    return true;
  });
});

/** Exported functions of lib.c (the exported object `remcp_lib_counter` is data). */
const LIB_FUNCTIONS = ["remcp_lib_add", "remcp_lib_name", "remcp_lib_print", "remcp_lib_scale"];

Deno.test("a shared library that keeps its .symtab still lists its .dynsym exports", () => {
  const f = fixture("elf_x86_64_lib.so", "library exports");
  if (!f) return;
  const img = openImage(f.bytes);
  assert.equal(img.info.stripped, false);
  const truth = f.truth as { functions: { name: string; address: string }[] } & {
    objects: { name: string; address: string }[];
  };
  const want = [...truth.functions, ...truth.objects]
    .filter((s) => s.name.startsWith("remcp_lib_") && s.name !== "remcp_lib_twice")
    .map((s) => [s.name, Number(s.address)]);
  assert.deepEqual(
    img.exports.map((e) => [e.name, e.address]).sort(),
    want.sort(),
  );
});

Deno.test("a library's exported functions are its entry points (ELF .so, Mach-O dylib, DLL)", () => {
  for (
    const [name, prefix, functions] of [
      ["elf_x86_64_lib.so", "", LIB_FUNCTIONS],
      ["macho_x86_64_lib.dylib", "_", LIB_FUNCTIONS],
      // remcp_dll_mul is exported by ordinal only; remcp_dll_beep is a forwarder (not code).
      ["remcp_dll.dll", "", ["Ordinal_2", "remcp_dll_add"]],
    ] as const
  ) {
    const f = fixture(name, "library entry points");
    if (!f) continue;
    const img = openImage(f.bytes);
    const exported = img.entryPoints.filter((e) => e.kind === "export");
    assert.deepEqual(
      exported.map((e) => e.name).sort(),
      functions.map((n) => n === "Ordinal_2" ? n : prefix + n).sort(),
      name,
    );
    for (const e of exported) {
      assert.equal(img.exports.find((x) => x.name === e.name)?.address, e.address, e.name);
      assert.equal(img.sectionAt(e.address)?.kind, "code", e.name);
    }
  }
  // Executables keep only their own entry points.
  for (const name of ["elf_x86_64_gcc_O2", "pe_x86_64_O2.exe", "macho_x86_64"]) {
    const f = fixture(name, "executable entry points");
    if (!f) continue;
    assert.deepEqual(openImage(f.bytes).entryPoints.filter((e) => e.kind === "export"), [], name);
  }
});
