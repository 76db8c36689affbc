/**
 * Test support: random goto-free programs and a small compiler from them to
 * graphs, laid out as gcc and clang do at -O0 and -O2 (loop tests at the top
 * or rotated to the bottom behind a guard, conditions as chains of empty
 * branch blocks). Structuring such a graph should need no goto.
 *
 * @module
 */

import { rng, type TestGraph } from "./_testing.ts";
import type { Terminator } from "./types.ts";

type PCond = { k: "atom" } | { k: "and" | "or"; l: PCond; r: PCond } | { k: "not"; x: PCond };

type P =
  | { k: "body" }
  | { k: "if"; c: PCond; t: P[]; e?: P[] }
  | { k: "while"; c: PCond; b: P[] }
  | { k: "do"; b: P[]; c: PCond }
  | { k: "loop"; b: P[] }
  | { k: "break" }
  | { k: "continue" }
  | { k: "return" }
  | { k: "switch"; cases: Array<{ values: bigint[]; b: P[]; brk: boolean }>; def?: P[] };

/**
 * A random structured program of about `size` statements, compiled to a
 * graph; one in two uses the -O2 loop layout.
 */
export function programGraph(seed: number, size: number): TestGraph {
  const r = rng(seed);
  let budget = size;
  const cond = (d: number): PCond => {
    const x = r();
    if (d > 2 || x < 0.6) return { k: "atom" };
    if (x < 0.7) return { k: "not", x: cond(d + 1) };
    return { k: x < 0.85 ? "and" : "or", l: cond(d + 1), r: cond(d + 1) };
  };
  const list = (d: number, loop: boolean, sw: boolean): P[] => {
    const out: P[] = [];
    const n = 1 + Math.floor(r() * 4);
    for (let i = 0; i < n && budget > 0; i++) {
      budget--;
      const x = d > 4 ? r() * 0.4 : r();
      if (x < 0.35) out.push({ k: "body" });
      else if (x < 0.4) {
        if (loop && r() < 0.5) {
          out.push({ k: "if", c: cond(0), t: [{ k: "body" }, { k: "break" }] });
        } else if (loop) out.push({ k: "if", c: cond(0), t: [{ k: "continue" }] });
        else if (r() < 0.3) out.push({ k: "if", c: cond(0), t: [{ k: "body" }, { k: "return" }] });
        else out.push({ k: "body" });
      } else if (x < 0.6) {
        out.push(
          r() < 0.5
            ? { k: "if", c: cond(0), t: list(d + 1, loop, sw) }
            : { k: "if", c: cond(0), t: list(d + 1, loop, sw), e: list(d + 1, loop, sw) },
        );
      } else if (x < 0.72) out.push({ k: "while", c: cond(0), b: list(d + 1, true, false) });
      else if (x < 0.8) out.push({ k: "do", b: list(d + 1, true, false), c: cond(0) });
      else if (x < 0.86) {
        const b = list(d + 1, true, false);
        b.push({ k: "if", c: cond(0), t: [{ k: "break" }] });
        out.push({ k: "loop", b });
      } else if (x < 0.94) {
        const k = 2 + Math.floor(r() * 4);
        const cases = Array.from({ length: k }, (_, j) => ({
          values: r() < 0.3 ? [BigInt(j * 3), BigInt(j * 3 + 1)] : [BigInt(j * 3)],
          b: list(d + 1, loop, true),
          brk: r() < 0.8,
        }));
        out.push(
          r() < 0.6 ? { k: "switch", cases, def: list(d + 1, loop, true) } : { k: "switch", cases },
        );
      } else if (x < 0.97 && sw) out.push({ k: "break" });
      else out.push({ k: "body" });
    }
    return out;
  };
  const rotate = r() < 0.5;
  // Statements at the top level until the size is used up.
  const program: P[] = [];
  while (budget > 0) program.push(...list(0, false, false));

  interface Blk {
    id: number;
    body: string;
    term?: Terminator<number>;
  }
  const blocks: Blk[] = [];
  const block = (body = ""): Blk => {
    const b: Blk = { id: 10 + blocks.length, body };
    blocks.push(b);
    return b;
  };
  const end = (b: Blk, term: Terminator<number>): void => {
    b.term = term;
  };
  // Branches from `from` on `c`: `t` when true, `f` when false.
  const branch = (from: Blk, c: PCond, t: Blk, f: Blk): void => {
    switch (c.k) {
      case "atom":
        end(from, { kind: "branch", cond: from.id, then: t.id, else: f.id });
        break;
      case "not":
        branch(from, c.x, f, t);
        break;
      case "and": {
        const mid = block();
        branch(from, c.l, mid, f);
        branch(mid, c.r, t, f);
        break;
      }
      case "or": {
        const mid = block();
        branch(from, c.l, t, mid);
        branch(mid, c.r, t, f);
        break;
      }
    }
  };
  interface Ctx {
    brk?: Blk;
    cont?: Blk;
  }
  const compile = (ps: P[], start: Blk, ctx: Ctx): Blk | undefined => {
    let cur: Blk | undefined = start;
    for (const p of ps) {
      if (cur === undefined) return undefined;
      switch (p.k) {
        case "body": {
          const b = block(`b${blocks.length + 10};`);
          end(cur, { kind: "jump", to: b.id });
          cur = b;
          break;
        }
        case "return":
          end(cur, { kind: "return" });
          cur = undefined;
          break;
        case "break":
          end(cur, { kind: "jump", to: ctx.brk!.id });
          cur = undefined;
          break;
        case "continue":
          end(cur, { kind: "jump", to: ctx.cont!.id });
          cur = undefined;
          break;
        case "if": {
          const t = block();
          const join = block();
          const f = p.e === undefined ? join : block();
          branch(cur, p.c, t, f);
          const te = compile(p.t, t, ctx);
          if (te !== undefined) end(te, { kind: "jump", to: join.id });
          if (p.e !== undefined) {
            const fe = compile(p.e, f, ctx);
            if (fe !== undefined) end(fe, { kind: "jump", to: join.id });
          }
          cur = join;
          break;
        }
        case "while": {
          const body = block();
          const exit = block();
          if (rotate) {
            // Guard, then the test at the bottom.
            const test = block();
            branch(cur, p.c, body, exit);
            const be = compile(p.b, body, { brk: exit, cont: test });
            if (be !== undefined) end(be, { kind: "jump", to: test.id });
            branch(test, p.c, body, exit);
          } else {
            const head = block();
            end(cur, { kind: "jump", to: head.id });
            branch(head, p.c, body, exit);
            const be = compile(p.b, body, { brk: exit, cont: head });
            if (be !== undefined) end(be, { kind: "jump", to: head.id });
          }
          cur = exit;
          break;
        }
        case "do": {
          const body = block();
          const test = block();
          const exit = block();
          end(cur, { kind: "jump", to: body.id });
          const be = compile(p.b, body, { brk: exit, cont: test });
          if (be !== undefined) end(be, { kind: "jump", to: test.id });
          branch(test, p.c, body, exit);
          cur = exit;
          break;
        }
        case "loop": {
          const body = block();
          const exit = block();
          end(cur, { kind: "jump", to: body.id });
          const be = compile(p.b, body, { brk: exit, cont: body });
          if (be !== undefined) end(be, { kind: "jump", to: body.id });
          cur = exit;
          break;
        }
        case "switch": {
          const exit = block();
          const starts = p.cases.map(() => block());
          const def = p.def === undefined ? undefined : block();
          const from = cur;
          end(from, {
            kind: "switch",
            value: from.id,
            cases: p.cases.map((c, i) => ({ values: c.values, to: starts[i]!.id })),
            default: (def ?? exit).id,
          });
          p.cases.forEach((c, i) => {
            const ce = compile(c.b, starts[i]!, { ...ctx, brk: exit });
            const next = c.brk ? exit : (starts[i + 1] ?? def ?? exit);
            if (ce !== undefined) end(ce, { kind: "jump", to: next.id });
          });
          if (def !== undefined) {
            const de = compile(p.def!, def, { ...ctx, brk: exit });
            if (de !== undefined) end(de, { kind: "jump", to: exit.id });
          }
          cur = exit;
          break;
        }
      }
    }
    return cur;
  };
  const entry = block("b0;");
  const last = compile(program, entry, {});
  if (last !== undefined) end(last, { kind: "return" });
  return {
    entry: entry.id,
    blocks: blocks.map((b) => ({ id: b.id, body: b.body, term: b.term ?? { kind: "stop" } })),
  };
}
