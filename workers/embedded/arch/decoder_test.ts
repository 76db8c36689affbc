import assert from "node:assert/strict";
import { RemcpError } from "../../../src/errors.ts";
import { createDecoder, supportedTargets } from "./decoder.ts";
import { ARCHES } from "./types.ts";

Deno.test("supportedTargets() lists every arch once with modes and an engine", () => {
  const targets = supportedTargets();
  assert.deepEqual(targets.map((t) => t.arch), [...ARCHES]);
  for (const target of targets) {
    assert.ok(target.modes.length > 0, target.arch);
    assert.match(target.engine, /^(iced-x86|capstone) /);
  }
});

Deno.test("createDecoder() reports a mode listed by supportedTargets()", async () => {
  const modes = new Map(supportedTargets().map((t) => [t.arch, t.modes]));
  for (const arch of ARCHES) {
    const decoder = await createDecoder(arch);
    try {
      assert.equal(decoder.arch, arch);
      assert.ok(modes.get(arch)?.includes(decoder.mode), `${arch}: ${decoder.mode}`);
    } finally {
      decoder.dispose();
    }
  }
  const thumb = await createDecoder("arm", { thumb: true, endian: "big" });
  assert.equal(thumb.mode, "thumb-be");
  thumb.dispose();
  const mips = await createDecoder("mips", { bits: 64, endian: "little" });
  assert.equal(mips.mode, "64-le");
  mips.dispose();
});

Deno.test("createDecoder() rejects combinations the arch does not have", async () => {
  const rejects = async (promise: Promise<unknown>) => {
    await assert.rejects(promise, (error) => {
      assert.ok(error instanceof RemcpError);
      assert.equal(error.code, "InvalidArgument");
      return true;
    });
  };
  await rejects(createDecoder("x86_64", { thumb: true }));
  await rejects(createDecoder("x86_64", { endian: "big" }));
  await rejects(createDecoder("aarch64", { bits: 32 }));
});
