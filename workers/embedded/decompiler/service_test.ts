import assert from "node:assert/strict";
import { RemcpError } from "../../../src/errors.ts";
import { openImage } from "../formats/open_image.ts";
import { NameIndex } from "../names.ts";
import { CodeView } from "../code.ts";
import { analyze } from "../analysis/analyze.ts";
import { AnnotationStore } from "../../shared/store/store.ts";
import type { EmbeddedDb } from "../db.ts";
import {
  decompiled,
  DecompilerCache,
  DEFAULT_LIMITS,
  limitsFromEnv,
  renderFor,
  TIER_ENV,
} from "./service.ts";
import { fitRendered } from "./fit.ts";
import { applyToIndexes } from "../tools/annotation_tools.ts";

const FIXTURE = new URL("../../../tests/fixtures/bin/elf_x86_64_gcc_O2", import.meta.url);

/** The fixture opened in process, as the embedded worker opens it. */
async function withDb(f: (d: EmbeddedDb) => Promise<void>): Promise<void> {
  const bytes = await Deno.readFile(FIXTURE);
  const image = openImage(bytes);
  const names = new NameIndex(image);
  const code = new CodeView(image);
  const dir = await Deno.makeTempDir({ prefix: "remcp-test-" });
  const store = AnnotationStore.open(`${dir}/a.sqlite`);
  try {
    const analysis = await analyze(image, await code.decoder(image.entry ?? image.imageBase));
    names.attachAnalysis(analysis);
    await f({
      path: FIXTURE.pathname,
      name: "fixture",
      sha256: "",
      options: {},
      image,
      names,
      store,
      code,
      analysis,
    });
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("decompiled() gives a function over the size cap simplified C, not an error", async () => {
  await withDb(async (d) => {
    const fn = [...d.analysis!.functions()].find((f) => f.name === "main")!;
    const limits = { ...DEFAULT_LIMITS, maxInstructions: 3 };
    const dec = await decompiled(d, fn, new DecompilerCache(), limits);
    assert.match(dec.degraded ?? "", /^\d+ instructions are over the full analysis's cap of 3/);
    const r = renderFor(d, fn, dec, new Map());
    assert.match(r.code, /^\/\* remcp: simplified output: \d+ instructions are over/);
    assert.match(r.code, /\n\S.* main\(.*\)\n\{/);
    assert.ok(r.lines.length > 3);
    for (const l of r.lines) {
      for (const a of l.addresses) {
        assert.ok(fn.blocks.some((b) => a >= b.start && a < b.end), `line ${l.line}`);
      }
    }
    // Within the cap the same function is the full pipeline's.
    const full = await decompiled(d, fn, new DecompilerCache());
    assert.equal(full.degraded, undefined);
    // Past the simplified tier's cap too: Unsupported, naming what to read instead.
    await assert.rejects(
      () => decompiled(d, fn, new DecompilerCache(), { ...limits, maxSimplifiedInstructions: 3 }),
      (e: unknown) =>
        e instanceof RemcpError && e.code === "Unsupported" &&
        /disassemble_function/.test(e.message),
    );
  });
});

Deno.test("decompiled() out of budget answers with the last-resort tier's C and says why", async () => {
  await withDb(async (d) => {
    const fn = [...d.analysis!.functions()].find((f) => f.name === "main")!;
    const spent = { ...DEFAULT_LIMITS, budgetMs: 0, simplifiedBudgetMs: 0 };
    const dec = await decompiled(d, fn, new DecompilerCache(), spent);
    assert.equal(dec.lastResort, true);
    assert.match(
      dec.degraded ?? "",
      /^the full analysis and the simplified tier ran past their 0 s budget \(stopped after lift\); the lifted instructions as C/,
    );
    const r = renderFor(d, fn, dec, new Map());
    assert.match(r.code, /^\/\* remcp: last-resort output: the full analysis/);
    assert.match(r.code, /\n\S.* main\(.*\)\n\{/);
    // Calls by name with the convention's registers, registers as variables.
    assert.match(r.code, /\n {4}rax = remcp_fib\(rdi[,)]/);
    assert.ok(r.lines.length > 10);
    for (const l of r.lines) {
      for (const a of l.addresses) {
        assert.ok(fn.blocks.some((b) => a >= b.start && a <= b.end), `line ${l.line}`);
      }
    }
  });
});

Deno.test("limitsFromEnv() forces a tier for the benchmark, and refuses an unknown one", async () => {
  const env = (value: string) => (name: string) => name === TIER_ENV ? value : undefined;
  assert.equal(limitsFromEnv(env("")), DEFAULT_LIMITS);
  assert.throws(
    () => limitsFromEnv(env("fast")),
    (e: unknown) => e instanceof RemcpError && e.code === "InvalidArgument",
  );
  await withDb(async (d) => {
    const fn = [...d.analysis!.functions()].find((f) => f.name === "main")!;
    const simplified = await decompiled(
      d,
      fn,
      new DecompilerCache(),
      limitsFromEnv(env("simplified")),
    );
    assert.match(simplified.degraded ?? "", /^the simplified tier was asked for/);
    assert.equal(simplified.lastResort, undefined);
    const last = await decompiled(d, fn, new DecompilerCache(), limitsFromEnv(env("last-resort")));
    assert.match(last.degraded ?? "", /^the last-resort tier was asked for/);
    assert.equal(last.lastResort, true);
  });
});

Deno.test("fitRendered() cuts code and line map together, with a note", () => {
  const code = Array.from({ length: 1000 }, (_, i) => `    v${i} = v${i} + 1;`).join("\n") + "\n";
  const lines = Array.from({ length: 1000 }, (_, i) => ({ line: i + 1, addresses: [0x1000 + i] }));
  const whole = fitRendered({ code, lines, variables: [] }, 1 << 20);
  assert.equal(whole.code, code);
  assert.equal(whole.cut, undefined);
  const cut = fitRendered({ code, lines, variables: [] }, 8000);
  assert.match(cut.cut ?? "", /^output cut after line \d+ of 1000/);
  const kept = cut.code.split("\n").length - 2;
  assert.ok(kept > 10 && kept < 1000);
  assert.match(cut.code, /\/\* remcp: output cut after line \d+ of 1000 .*0x1[0-9a-f]{3}.*\*\/\n$/);
  assert.ok(cut.lines.every((l) => l.line <= kept));
  assert.ok(cut.code.length + JSON.stringify(cut.lines).length < 8000);
});

Deno.test("renaming a callee to a name with a built-in prototype changes its callers' C", async () => {
  await withDb(async (d) => {
    const fns = [...d.analysis!.functions()];
    const main = fns.find((f) => f.name === "main")!;
    const fact = fns.find((f) => f.name === "remcp_fact")!;
    d.decompiler = new DecompilerCache();
    const show = async (cache: DecompilerCache) =>
      renderFor(d, main, await decompiled(d, main, cache, DEFAULT_LIMITS), new Map()).code;
    const before = await show(d.decompiler);
    assert.match(before, /remcp_fact\(/);
    // memcpy takes three arguments where remcp_fact takes one.
    d.store.set("name", fact.start, "memcpy");
    applyToIndexes(d, "name", fact.start, "memcpy");
    const cached = await show(d.decompiler);
    assert.match(cached, /memcpy\(/);
    assert.equal(cached, await show(new DecompilerCache()));
  });
});
