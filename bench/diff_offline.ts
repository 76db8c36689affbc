/**
 * The matcher alone on the features bench/diff.ts dumped (REMCP_BENCH_DUMP=DIR), scored the same
 * way: a matcher change measured over every dumped pair in seconds. The features are the ones the
 * server read in that run, so the numbers equal the bench's as long as feature extraction did not
 * change; each pair first says whether the matcher here reproduces the served pairs.
 *
 *   REMCP_BENCH_DIR=… REMCP_BENCH_DUMP=/tmp/dump REMCP_BENCH_ONLY=lua deno run -A bench/diff.ts
 *   deno run -A bench/diff_offline.ts /tmp/dump [--misses] [--broad] [--only=TEXT]
 *
 * `--matcher=FILE` imports matchFunctions from another copy of src/diff/match.ts (a checkout of
 * the commit before, for a before/after table); `--misses` lists every wrong pair (with its round and similarity) and every missed true pair;
 * `--only=TEXT` keeps the pairs whose name has TEXT; `--json=FILE` writes each pair's numbers,
 * for a before/after table.
 */
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { matchFunctions as ours } from "../src/diff/match.ts";
import type { DiffDump } from "./_diff_dump.ts";
import { scoreMatches } from "./_match_score.ts";

const { values, positionals } = parseArgs({
  args: Deno.args,
  allowPositionals: true,
  options: {
    misses: { type: "boolean", default: false },
    broad: { type: "boolean", default: false },
    only: { type: "string" },
    json: { type: "string" },
    matcher: { type: "string" },
  },
});
const matchFunctions: typeof ours = values.matcher
  ? (await import(pathToFileURL(resolve(values.matcher)).href)).matchFunctions
  : ours;
const dir = positionals[0];
if (!dir) {
  console.error(
    "usage: deno run -A bench/diff_offline.ts DUMP_DIR [--misses] [--broad] [--only=TEXT]",
  );
  Deno.exit(2);
}

const files = [...Deno.readDirSync(dir)].filter((e) => e.name.endsWith(".json")).map((e) => e.name)
  .sort();
const out: Record<string, { precision: number; recall: number; judged: number; correct: number }> =
  {};
for (const file of files) {
  const d = JSON.parse(await Deno.readTextFile(join(dir, file))) as DiffDump;
  if (values.only !== undefined && !d.pair.includes(values.only)) continue;
  const t0 = performance.now();
  const pointers = d.pointersA && d.pointersB ? { a: d.pointersA, b: d.pointersB } : undefined;
  const m = matchFunctions(d.a, d.b, { broad: values.broad, ...(pointers ? { pointers } : {}) });
  const seconds = (performance.now() - t0) / 1000;
  const pairs = m.matches.map((x) => [d.a[x.a]!.start, d.b[x.b]!.start] as const);
  const symA = new Map(d.symA);
  const symA0 = new Map(d.symA0);
  const symB = new Map(d.symB);
  const foundA = new Set(d.foundA);
  const foundB = new Set(d.foundB);
  const s = scoreMatches(pairs, symA, symB, foundA, foundB);
  const key = (p: readonly [number, number]) => `${p[0]}:${p[1]}`;
  const served = new Set(d.served.map(key));
  const same = !values.broad && served.size === pairs.length &&
    pairs.every((p) => served.has(key(p)));
  const sv = scoreMatches(d.served, symA, symB, foundA, foundB);
  const servedScore = `${sv.precision.toFixed(3)} / ${
    sv.recall.toFixed(3)
  } (${sv.correct} of ${sv.judged})`;
  let split = "";
  if (d.splits) {
    const splits = new Map(d.splits);
    const moved = s.wrong.filter((i) => {
      const na = symA0.get(pairs[i]![0]);
      return na !== undefined && splits.get(na) === symB.get(pairs[i]![1]);
    }).length;
    const c = s.correct + moved;
    split = `; splits right: ${(c / s.judged).toFixed(3)} / ${Math.min(1, c / s.truth).toFixed(3)}`;
  }
  console.log(
    `${d.pair}\n  ${s.precision.toFixed(3)} / ${
      s.recall.toFixed(3)
    } (${s.correct} of ${s.judged} ` +
      `judged, truth ${s.truth}, wrong ${s.wrong.length})${split}; matcher ${
        seconds.toFixed(1)
      } s` +
      (values.broad ? "" : `; ${same ? "same pairs as served" : `served ${servedScore}`}`),
  );
  out[d.pair] = { precision: s.precision, recall: s.recall, judged: s.judged, correct: s.correct };
  if (!values.misses) continue;
  const matchedA = new Map(pairs.map(([a, b]) => [a, b]));
  const matchedB = new Set(pairs.map(([, b]) => b));
  const startB = new Map(d.symB.map(([at, n]) => [n, at]));
  const startA = new Map(d.symA.map(([at, n]) => [n, at]));
  // Where each side's true partner is: a pair whose partners both do not exist on the other side
  // is a rename or a merge, arguable as wrong; one whose partner stands free was a wrong choice.
  const fate = (at: number | undefined, found: Set<number>, matched: { has(k: number): boolean }) =>
    at === undefined || !found.has(at)
      ? "absent"
      : matched.has(at)
      ? "matched elsewhere"
      : "unmatched";
  for (const i of s.wrong) {
    const x = m.matches[i]!;
    const [pa, pb] = pairs[i]!;
    const trueB = startB.get(symA.get(pa)!);
    const trueA = startA.get(symB.get(pb)!);
    console.log(
      `  wrong: ${symA0.get(pa)} → ${symB.get(pb)} (${x.round}, similarity ${
        x.similarity.toFixed(3)
      }; a's partner ${fate(trueB, foundB, matchedB)}, b's partner ${
        fate(trueA, foundA, matchedA)
      })`,
    );
  }
  for (const [at, n] of symA) {
    const bt = startB.get(n);
    if (bt === undefined || !foundA.has(at) || !foundB.has(bt) || matchedA.get(at) === bt) continue;
    console.log(
      `  missed: ${n} (a ${matchedA.has(at) ? "matched elsewhere" : "unmatched"}, b ${
        matchedB.has(bt) ? "matched elsewhere" : "unmatched"
      })`,
    );
  }
}
if (values.json) await Deno.writeTextFile(values.json, JSON.stringify(out, null, 1));
