/**
 * Structurer benchmark: time on large graphs against the plain goto form of
 * the same graph (a linear pass, measured in the same run), and gotos on
 * compiled goto-free programs and on random graphs (SAILR's metric).
 *
 * Run: `deno run -A bench/structure.ts`
 *
 * @module
 */

import { cpuUsage } from "node:process";
import { defaultIsEmpty, structure } from "../workers/embedded/decompiler/structure/structure.ts";
import { gotoForm } from "../workers/embedded/decompiler/structure/_goto_form.ts";
import { randomGraph, type TestGraph } from "../workers/embedded/decompiler/structure/_testing.ts";
import { programGraph } from "../workers/embedded/decompiler/structure/_programs.ts";

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Median CPU milliseconds of `f` (CPU time, not wall time: the machine may be shared). */
function time(f: () => void, runs: number): number {
  for (let i = 0; i < 3; i++) f(); // warm-up: let the JIT settle
  const ts: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = cpuUsage();
    f();
    const d = cpuUsage(t);
    ts.push((d.user + d.system) / 1000);
  }
  return median(ts);
}

function speed(): void {
  console.log("CPU ms, median of 5");
  console.log(
    "graph          blocks     structure ms  goto form ms  ratio  µs/block steps    gotos",
  );
  console.log("(blocks: reachable ones after jump threading)");
  const cases: Array<[string, TestGraph]> = [
    // Few returns, so most of the graph is reachable.
    ...([[1_000, 1], [10_000, 11], [50_000, 5]] as const).map((
      [n, seed],
    ): [string, TestGraph] => [`random ${n}`, randomGraph(seed, n, 0.001)]),
    ["program 10000", programGraph(1, 10_000)],
  ];
  for (const [name, g] of cases) {
    const s = structure(g);
    const flat = gotoForm(g, defaultIsEmpty);
    const labels = countLabels(flat.body);
    const ts = time(() => structure(g), 5);
    const tf = time(() => gotoForm(g, defaultIsEmpty), 5);
    console.log(
      `${name.padEnd(15)}${String(labels).padEnd(11)}${ts.toFixed(1).padEnd(14)}` +
        `${tf.toFixed(1).padEnd(14)}${(ts / tf).toFixed(2).padEnd(7)}${
          (1000 * ts / labels).toFixed(1).padEnd(9)
        }${String(s.steps).padEnd(9)}${s.gotos}${
          s.warnings.length > 0 ? `  (${s.warnings.join("; ")})` : ""
        }`,
    );
  }
}

/** Blocks laid out in the goto form: one per reachable block after jump threading. */
function countLabels(s: ReturnType<typeof gotoForm<string, number>>["body"]): number {
  let n = 0;
  const walk = (x: typeof s): void => {
    if (x.kind === "block") n++;
    else if (x.kind === "seq") x.items.forEach(walk);
    else if (x.kind === "if") walk(x.then);
  };
  walk(s);
  return n;
}

function gotos(): void {
  let ours = 0;
  let flat = 0;
  let clean = 0;
  const programs = 400;
  for (let p = 0; p < programs; p++) {
    const g = programGraph(p, 25);
    const s = structure(g);
    ours += s.gotos;
    flat += gotoForm(g, defaultIsEmpty).gotos;
    if (s.gotos === 0) clean++;
  }
  console.log(
    `\ncompiled goto-free programs: ${programs}, goto-free after structuring: ${clean} ` +
      `(${(100 * clean / programs).toFixed(1)}%), gotos ${ours} vs ${flat} in the goto form ` +
      `(${(ours / flat).toFixed(3)})`,
  );
  let r = 0;
  let rf = 0;
  const graphs = 500;
  for (let i = 0; i < graphs; i++) {
    const g = randomGraph(i, 3 + (i % 30));
    r += structure(g).gotos;
    rf += gotoForm(g, defaultIsEmpty).gotos;
  }
  console.log(
    `random graphs (mostly unstructured): ${graphs}, gotos ${r} vs ${rf} in the goto form ` +
      `(${(r / rf).toFixed(3)})`,
  );
}

if (import.meta.main) {
  speed();
  gotos();
}
