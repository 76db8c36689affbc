/** End-to-end: diff_databases, diff_function and port_annotations through the real server. */
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/client";
import { fixture, type Harness, ok, repoPath, runCli, startRemcp } from "./_harness.ts";
import { loadConfig } from "../src/config.ts";
import { backendProbes } from "../src/supervisor/backends.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const bin = (name: string) => fixture(`diff/${name}`);

type Row = Record<string, unknown>;

/** Runs `fn` against a fresh server and always stops it. */
async function session(fn: (h: Harness) => Promise<void>): Promise<void> {
  const h = await startRemcp();
  try {
    await fn(h);
  } finally {
    await h.close();
  }
}

async function open(client: Client, name: string): Promise<string> {
  const o = await ok(client, "open_database", { path: bin(name) });
  await ok(client, "wait_for_analysis", { database: o.database });
  return o.database as string;
}

async function diffAll(client: Client, a: string, b: string, list: string, extra: Row = {}) {
  const r = await ok(client, "diff_databases", { a, b, list, limit: 1000, ...extra });
  return { r, items: r.items as Row[], totals: r.totals as Record<string, number> };
}

Deno.test(
  "diff_databases: identical files match everything and nothing changed",
  e2e,
  () =>
    session(async (h) => {
      const a = await open(h.client, "diff_v1");
      const b = await open(h.client, "diff_v1_copy");
      const { r, totals } = await diffAll(h.client, a, b, "changed");
      const fa = (r.a as Row).functions as number;
      assert.ok(fa > 130, `functions found: ${fa}`);
      assert.equal(totals.matched, fa);
      assert.equal(totals.identical, fa);
      assert.equal(totals.changed, 0);
      assert.equal(totals.only_a, 0);
      assert.equal(totals.only_b, 0);
      const { items } = await diffAll(h.client, a, b, "matched");
      for (const m of items) {
        assert.equal(m.a_start, m.b_start);
        assert.equal(m.similarity, 1);
      }
    }),
);

Deno.test(
  "diff_databases: a one-function change shows exactly that function",
  e2e,
  () =>
    session(async (h) => {
      const a = await open(h.client, "diff_v1_stripped");
      const b = await open(h.client, "diff_change_stripped");
      const { r, items, totals } = await diffAll(h.client, a, b, "changed");
      assert.equal(totals.only_a, 0, JSON.stringify(r));
      assert.equal(totals.only_b, 0);
      assert.equal(items.length, 1, JSON.stringify(items));
      const unstripped = await open(h.client, "diff_v1");
      const sym = await ok(h.client, "resolve_address", {
        database: unstripped,
        address: "checksum",
      });
      assert.equal(items[0]!.a_start, sym.address);
      assert.ok((items[0]!.similarity as number) < 1);
      assert.equal(r.cached, false);
      const again = await ok(h.client, "diff_databases", { a, b });
      assert.equal(again.cached, true);
    }),
);

Deno.test(
  "diff_databases: a renamed and moved function matches by its code",
  e2e,
  () =>
    session(async (h) => {
      const a = await open(h.client, "diff_v1");
      const b = await open(h.client, "diff_rename");
      const { items, totals } = await diffAll(h.client, a, b, "matched");
      assert.equal(totals.only_a, 0);
      assert.equal(totals.only_b, 0);
      const m = items.find((x) => x.a_name === "parse_header");
      assert.ok(m, "parse_header is matched");
      assert.equal(m.b_name, "read_header");
      assert.notEqual(m.a_start, m.b_start);
      assert.ok(!(m.evidence as string[]).includes("name"));
      assert.ok((m.evidence as string[]).includes("mnemonics"), JSON.stringify(m));
      for (const x of items) {
        if (x !== m) assert.equal(x.a_name, x.b_name, `mismatch ${JSON.stringify(x)}`);
      }
    }),
);

Deno.test("diff_databases: a deleted function is only in a", e2e, () =>
  session(async (h) => {
    const a = await open(h.client, "diff_v1");
    const b = await open(h.client, "diff_delete");
    const onlyA = await diffAll(h.client, a, b, "only_a");
    // puts and strcmp were imported for legacy_mode alone: their PLT stubs went with it.
    assert.deepEqual(onlyA.items.map((x) => x.name).sort(), ["legacy_mode", "puts", "strcmp"]);
    assert.equal(onlyA.totals.only_b, 0);
    const changed = await diffAll(h.client, a, b, "changed");
    assert.deepEqual(changed.items.map((x) => x.a_name), ["main"]);
  }));

Deno.test(
  "diff_databases: portable features equal the embedded bulk features",
  e2e,
  () =>
    session(async (h) => {
      const a = await open(h.client, "diff_v1_stripped");
      const b = await open(h.client, "diff_change_stripped");
      const bulk = await diffAll(h.client, a, b, "matched");
      const portable = await diffAll(h.client, a, b, "matched", { features: "portable" });
      assert.deepEqual(portable.totals, bulk.totals);
      assert.deepEqual(portable.items, bulk.items);
    }),
);

Deno.test(
  "diff_databases: features are stored with the analysis; diffs are kept per pair of contents",
  e2e,
  async () => {
    const stateDir = await Deno.makeTempDir({ prefix: "remcp-diff-state-" });
    const side = (r: Row, k: "a" | "b") => r[k] as { functions: number; features_computed: number };
    const pair = async (client: Client) => [
      await open(client, "diff_v1_stripped"),
      await open(client, "diff_change_stripped"),
    ];
    try {
      let first: Row = {};
      const h1 = await startRemcp({ stateDir });
      try {
        const [a, b] = await pair(h1.client);
        first = (await diffAll(h1.client, a!, b!, "matched")).r;
        for (const k of ["a", "b"] as const) {
          assert.ok(side(first, k).functions > 100);
          assert.equal(side(first, k).features_computed, side(first, k).functions);
        }
        // The same two files opened again (new ids): the pair's diff is kept.
        for (const database of [a, b]) await ok(h1.client, "close_database", { database });
        const [a2, b2] = await pair(h1.client);
        const again = await ok(h1.client, "diff_databases", { a: a2, b: b2 });
        assert.equal(again.cached, true);
        assert.equal(side(again, "a").features_computed, 0);
        // An annotation changes the stamp: the diff is made again, from features the worker kept.
        const at = (first.items as Row[])[0]!.a_start as string;
        await ok(h1.client, "rename", { database: a2, address: at, name: "renamed_fn" });
        const renamed = await diffAll(h1.client, a2!, b2!, "matched");
        assert.equal(renamed.r.cached, false);
        assert.equal(side(renamed.r, "a").features_computed, 0);
        assert.equal(renamed.items[0]!.a_name, "renamed_fn");
        await ok(h1.client, "undo", { database: a2 });
      } finally {
        await h1.close();
      }
      // A new server and new workers on the same state: the features come from the store.
      const h2 = await startRemcp({ stateDir });
      try {
        const [a, b] = await pair(h2.client);
        const info = await ok(h2.client, "get_database_info", { database: a });
        assert.equal((info.analysis as Row).cached, true);
        const second = await diffAll(h2.client, a!, b!, "matched");
        assert.equal(second.r.cached, false);
        for (const k of ["a", "b"] as const) {
          assert.equal(side(second.r, k).features_computed, 0, JSON.stringify(second.r[k]));
        }
        assert.deepEqual(second.totals, first.totals);
        assert.deepEqual(second.items, first.items);
      } finally {
        await h2.close();
      }
    } finally {
      await Deno.remove(stateDir, { recursive: true }).catch(() => {});
    }
  },
);

Deno.test(
  "diff_function: the changed function's blocks and instructions",
  e2e,
  () =>
    session(async (h) => {
      const a = await open(h.client, "diff_v1");
      const b = await open(h.client, "diff_change");
      const same = await ok(h.client, "diff_function", {
        a,
        a_function: "kind_name",
        b,
        b_function: "kind_name",
      });
      assert.equal(same.similarity, 1);
      assert.deepEqual(same.totals, {
        identical: (same.a as Row).blocks,
        changed: 0,
        added: 0,
        removed: 0,
      });
      const d = await ok(h.client, "diff_function", {
        a,
        a_function: "checksum",
        b,
        b_function: "checksum",
      });
      const totals = d.totals as Record<string, number>;
      assert.ok(totals.changed! + totals.added! + totals.removed! > 0, JSON.stringify(d));
      assert.ok((d.similarity as number) < 1);
      const text = [
        ...(d.changed as Row[]).map((c) => c.diff as string),
        ...(d.added as Row[]).map((x) => x.text as string),
      ].join("\n");
      // The new body xors in the CRC-32 polynomial.
      assert.match(text, /0xedb88320/, text);
      // The embedded backend decompiles: the pseudo-C of the two versions differs too.
      const pc = d.pseudo_c as Row | undefined;
      assert.ok(pc, JSON.stringify(d.warnings));
      assert.match(pc.diff as string, /^[+-]/m);
    }),
);

Deno.test(
  "diff_databases: cancelling leaves both databases usable",
  e2e,
  () =>
    session(async (h) => {
      const a = await open(h.client, "diff_v1");
      const b = await open(h.client, "diff_delete");
      const abort = new AbortController();
      let progressed = 0;
      const call = h.client.callTool(
        { name: "diff_databases", arguments: { a, b, features: "portable" } },
        {
          signal: abort.signal,
          onprogress: () => {
            progressed++;
            abort.abort("enough");
          },
        },
      );
      await assert.rejects(call);
      assert.ok(progressed > 0, "a progress notification came before the cancellation");
      for (const database of [a, b]) {
        const fns = await ok(h.client, "list_functions", { database, limit: 1 });
        assert.ok((fns.total as number) > 100);
      }
      const after = await ok(h.client, "diff_databases", { a, b, list: "only_a" });
      assert.equal((after.totals as Record<string, number>).only_a, 3);
    }),
);

Deno.test(
  "port_annotations carries annotations, reports conflicts, and undoes",
  e2e,
  () =>
    session(async (h) => {
      const symA = await open(h.client, "diff_v1");
      const symB = await open(h.client, "diff_change");
      const at = async (database: string, name: string) =>
        (await ok(h.client, "resolve_address", { database, address: name })).address as string;
      const a = await open(h.client, "diff_v1_stripped");
      const b = await open(h.client, "diff_change_stripped");
      const [sumA, kindA, mainA, stepA] = await Promise.all(
        ["checksum", "kind_name", "main", "step17"].map((n) => at(symA, n)),
      );
      const [sumB, kindB, stepB] = await Promise.all(
        ["checksum", "kind_name", "step17"].map((n) => at(symB, n)),
      );
      const second = async (database: string, address: string | undefined) => {
        const d = await ok(h.client, "disassemble", { database, address, count: 2 });
        return (d.items as Row[])[1]!.address as string;
      };
      await ok(h.client, "rename", { database: a, address: sumA, name: "my_checksum" });
      await ok(h.client, "rename", { database: a, address: kindA, name: "kind_to_text" });
      await ok(h.client, "rename", { database: a, address: stepA, name: "mine" });
      await ok(h.client, "set_comment", {
        database: a,
        address: await second(a, kindA),
        comment: "switch on kind",
      });
      await ok(h.client, "set_function_prototype", {
        database: a,
        address: kindA,
        prototype: "const char *kind_to_text(int kind)",
      });
      await ok(h.client, "add_bookmark", { database: a, address: mainA, note: "entry" });
      // A name of its own already in the target: a conflict, never overwritten.
      await ok(h.client, "rename", { database: b, address: stepB, name: "theirs" });

      const dry = await ok(h.client, "port_annotations", { from: a, to: b, dry_run: true });
      assert.equal(dry.changes, 0);
      assert.equal(dry.carried, 5, JSON.stringify(dry));
      const before = await ok(h.client, "get_function", { database: b, address: sumB });
      assert.notEqual(before.name, "my_checksum");

      const r = await ok(h.client, "port_annotations", { from: a, to: b });
      assert.equal(r.carried, 5, JSON.stringify(r));
      assert.equal(r.skipped, 1);
      assert.equal(r.changes, 5);
      const conflict = (r.items as Row[]).find((x) => x.status === "skipped")!;
      assert.equal(conflict.value, "mine");
      assert.match(conflict.reason as string, /theirs/);
      assert.equal(
        (await ok(h.client, "get_function", { database: b, address: sumB })).name,
        "my_checksum",
      );
      const kind = await ok(h.client, "get_function", { database: b, address: kindB });
      assert.equal(kind.name, "kind_to_text");
      assert.equal(kind.prototype, "const char *kind_to_text(int kind)");
      const comments = await ok(h.client, "list_comments", { database: b });
      assert.deepEqual((comments.items as Row[]).map((c) => [c.address, c.comment]), [
        [await second(b, kindB), "switch on kind"],
      ]);
      const again = await ok(h.client, "port_annotations", { from: a, to: b });
      assert.equal(again.carried, 0);
      assert.equal(again.unchanged, 5);

      for (let i = 0; i < (r.changes as number); i++) await ok(h.client, "undo", { database: b });
      assert.notEqual(
        (await ok(h.client, "get_function", { database: b, address: sumB })).name,
        "my_checksum",
      );
      assert.equal((await ok(h.client, "list_comments", { database: b })).total, 0);
      assert.equal(
        (await ok(h.client, "get_function", { database: b, address: stepB })).name,
        "theirs",
      );
    }),
);

Deno.test("remcp run --pair binds a and b: examples/diff_pair.js", e2e, async () => {
  const pair = [bin("diff_v1_stripped"), bin("diff_change_stripped")];
  const r = await runCli(["--pair", repoPath("examples/diff_pair.js"), ...pair]);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.old, pair[0]);
  assert.equal(out.totals.changed, 1);
  assert.equal(out.changed.length, 1);
  assert.ok(out.changed[0].blocks.identical > 0);
  const odd = await runCli(["--pair", repoPath("examples/diff_pair.js"), pair[0]!]);
  assert.equal(odd.code, 2);
  assert.match(odd.stderr, /two at a time/);
});

const rizin = (await backendProbes(loadConfig(Deno.env.toObject())).one("rizin"))!;
if (!rizin.available) {
  console.log(`diff across backends (embedded vs rizin) skipped: ${rizin.reason}`);
}

Deno.test({
  name: "diff_databases across backends: embedded against rizin",
  ignore: !rizin.available,
  ...e2e,
  fn: () =>
    session(async (h) => {
      const a = await open(h.client, "diff_v1");
      const o = await ok(h.client, "open_database", {
        path: bin("diff_change"),
        backend: "rizin",
      });
      const b = o.database as string;
      await ok(h.client, "wait_for_analysis", { database: b });
      const { r, items } = await diffAll(h.client, a, b, "matched");
      const fa = (r.a as Row).functions as number;
      const fb = (r.b as Row).functions as number;
      assert.ok(items.length >= 0.9 * Math.min(fa, fb), JSON.stringify(r.totals));
      for (const name of ["main", "checksum", "kind_name", "step17", "parse_header"]) {
        const m = items.find((x) => x.a_name === name);
        assert.ok(m, `${name} is matched`);
        assert.match(m.b_name as string, new RegExp(name));
      }
    }),
});

Deno.test(
  "function_features: pointers=true lists the data slots holding function starts",
  e2e,
  () =>
    session(async (h) => {
      const a = await open(h.client, "diff_v1");
      const plain = await ok(h.client, "function_features", { database: a, limit: 1 });
      assert.equal(plain.pointers, undefined);
      // Each page lists the slots pointing at its own functions, in slot order.
      const pointers: [string, string][] = [];
      for (let offset = 0;;) {
        const r = await ok(h.client, "function_features", {
          database: a,
          offset,
          limit: 20,
          pointers: true,
        });
        const onPage = new Set((r.items as Row[]).map((f) => Number(f.start)));
        let last = -1;
        for (const [slot, to] of r.pointers as [string, string][]) {
          assert.ok(onPage.has(Number(to)), `${slot} → ${to} is not a function of this page`);
          assert.ok(Number(slot) > last && Number(slot) % 8 === 0, `slot ${slot}`);
          last = Number(slot);
          pointers.push([slot, to]);
        }
        if (r.has_more !== true) break;
        offset = r.next_offset as number;
      }
      // A PIE: the slots are zero in the file, filled by R_X86_64_RELATIVE relocations.
      assert.ok(pointers.length > 10, `pointers: ${pointers.length}`);
      assert.equal(new Set(pointers.map(([slot]) => slot)).size, pointers.length);
    }),
);
