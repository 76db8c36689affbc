/** The shipped `remcp run` examples, run by the real CLI against fixtures. */
import assert from "node:assert/strict";
import { fixture, repoPath, runCli } from "./_harness.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };

const run = runCli;

Deno.test("examples/largest_functions.js lists ten functions with callees", e2e, async () => {
  const r = await run([repoPath("examples/largest_functions.js"), fixture("elf_x86_64_gcc_O2")]);
  assert.equal(r.code, 0, r.stderr);
  const rows = JSON.parse(r.stdout) as { name: string; size: number; callees: string[] }[];
  assert.equal(rows.length, 10);
  assert.ok(rows[0]!.size >= rows[9]!.size);
  assert.ok(rows.some((x) => x.name === "main" && x.callees.includes("remcp_fact")));
});

Deno.test(
  "examples/functions_using_string.js and rename_from_strings.js find string users",
  e2e,
  async () => {
    const file = fixture("elf_x86_64_gcc_O2_stripped");
    const r = await run([repoPath("examples/rename_from_strings.js"), file]);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { sample: { name: string; because: string }[] };
    assert.ok(out.sample.some((p) => p.name === "fn_hello_remcp" && p.because === "Hello, remcp!"));
    const u = await run([
      repoPath("examples/functions_using_string.js"),
      fixture("pe_x86_64_O2.exe"),
    ]);
    assert.equal(u.code, 0, u.stderr);
    assert.ok(typeof JSON.parse(u.stdout).total_uses === "number");
  },
);

Deno.test("examples/imports.js dumps a folder's imports as NDJSON", e2e, async () => {
  const files = ["elf_x86_64_gcc_O2", "pe_x86_64_O2.exe", "macho_x86_64"].map(fixture);
  const r = await run([repoPath("examples/imports.js"), "--ndjson", "--jobs", "2", ...files]);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
  assert.equal(lines.length, 3);
  const pe = lines.find((l) => l.file.endsWith(".exe"));
  assert.ok(pe.result.imports.some((i: string) => /KERNEL32\.dll!/i.test(i)));
  const elf = lines.find((l) => l.file.endsWith("gcc_O2"));
  assert.ok(elf.result.imports.includes("libc.so.6!printf"));
});
