/**
 * The side-by-side numbers of remcp's decompiler and Ghidra's on the same functions: pairs of
 * results where both gave C, and one table row of gotos, lines and milliseconds per function.
 */
import { type CodeShape, mean, quantile, shapeOf } from "./stats.ts";

/** One function both decompilers gave C for. */
export interface Pair {
  /** Where it came from (a binary and an address, or a corpus function's name). */
  what: string;
  ours: { ms: number; cpuMs?: number; shape: CodeShape; code: string };
  theirs: { ms: number; cpuMs?: number; shape: CodeShape; code: string };
}

/** One decompiler's answer for one function: its C, or undefined when it gave none. */
export interface Answer {
  ms: number;
  /** CPU milliseconds, when measured (wall time on a busy machine is mostly waiting). */
  cpuMs?: number;
  code: string | undefined;
}

/** The pairs of `ours` and `theirs` (same order, same functions) where both gave C. */
export function pairUp(
  what: readonly string[],
  ours: readonly Answer[],
  theirs: readonly Answer[],
): Pair[] {
  return ours.flatMap((o, i) => {
    const t = theirs[i];
    if (o.code === undefined || t?.code === undefined) return [];
    return [{
      what: what[i]!,
      ours: { ...cpuOf(o), ms: o.ms, shape: shapeOf(o.code), code: o.code },
      theirs: { ...cpuOf(t), ms: t.ms, shape: shapeOf(t.code), code: t.code },
    }];
  });
}

function cpuOf(a: Answer): { cpuMs?: number } {
  return a.cpuMs !== undefined ? { cpuMs: a.cpuMs } : {};
}

/** The columns of {@linkcode sideRow}, after the row's label. */
export const SIDE_HEADER = [
  "both",
  "gotos remcp",
  "gotos Ghidra",
  "fewer/more gotos",
  "lines remcp",
  "lines Ghidra",
  "median ms remcp",
  "median ms Ghidra",
  "p99 ms remcp",
  "p99 ms Ghidra",
  "Ghidra/remcp median",
  "median CPU ms remcp",
  "median CPU ms Ghidra",
  "Ghidra/remcp CPU",
  "p99 CPU ms remcp",
  "p99 CPU ms Ghidra",
];

function fmt(n: number, digits: number): string {
  return Number.isNaN(n) ? "-" : n.toFixed(digits);
}

/**
 * One table row: per-function means of gotos and lines, how many functions have fewer / more
 * gotos than Ghidra's, median and p99 milliseconds, and how many times our median Ghidra's is.
 * `of` is the number of functions tried (the "both" column says how many both decompiled).
 */
export function sideRow(label: string, pairs: readonly Pair[], of: number): string[] {
  const ms = pairs.map((p) => p.ours.ms);
  const gms = pairs.map((p) => p.theirs.ms);
  const fewer = pairs.filter((p) => p.ours.shape.gotos < p.theirs.shape.gotos).length;
  const more = pairs.filter((p) => p.ours.shape.gotos > p.theirs.shape.gotos).length;
  const speed = quantile(gms, 0.5) / quantile(ms, 0.5);
  // CPU time only over the pairs where both sides measured it.
  const timed = pairs.filter((p) => p.ours.cpuMs !== undefined && p.theirs.cpuMs !== undefined);
  const cpu = quantile(timed.map((p) => p.ours.cpuMs!), 0.5);
  const gcpu = quantile(timed.map((p) => p.theirs.cpuMs!), 0.5);
  return [
    label,
    `${pairs.length}/${of}`,
    fmt(mean(pairs.map((p) => p.ours.shape.gotos)), 2),
    fmt(mean(pairs.map((p) => p.theirs.shape.gotos)), 2),
    `${fewer}/${more}`,
    fmt(mean(pairs.map((p) => p.ours.shape.lines)), 1),
    fmt(mean(pairs.map((p) => p.theirs.shape.lines)), 1),
    fmt(quantile(ms, 0.5), 2),
    fmt(quantile(gms, 0.5), 2),
    fmt(quantile(ms, 0.99), 2),
    fmt(quantile(gms, 0.99), 2),
    Number.isFinite(speed) ? `${speed.toFixed(2)}×` : "-",
    fmt(cpu, 2),
    fmt(gcpu, 2),
    Number.isFinite(gcpu / cpu) ? `${(gcpu / cpu).toFixed(2)}×` : "-",
    fmt(quantile(timed.map((p) => p.ours.cpuMs!), 0.99), 2),
    fmt(quantile(timed.map((p) => p.theirs.cpuMs!), 0.99), 2),
  ];
}
