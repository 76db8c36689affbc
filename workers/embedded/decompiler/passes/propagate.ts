/**
 * Copy, constant and expression propagation over SSA: a definition whose value is cheap
 * (a constant, a variable, `x + c`) replaces every use; one read once replaces that use — if it
 * reads memory, only when the use follows in the same block with no store, call or slot write in
 * between. Then every expression is simplified.
 */

import {
  type Expr,
  type IrBlock,
  type IrFunction,
  mapChildren,
  mapStmt,
  mapTerm,
  someChild,
  type Stmt,
  type Var,
  varKey,
} from "../ir.ts";
import { eliminateDeadCode } from "./dead.ts";
import { removeTrivialPhis, substitute } from "../ssa.ts";
import { simplify } from "./simplify.ts";
import { countUses, exprLarger, readsMemory } from "./uses.ts";

const MAX_INLINED_SIZE = 40;

function cheap(e: Expr): boolean {
  if (e.k === "const" || e.k === "reg" || e.k === "tmp" || e.k === "addr") return true;
  return e.k === "bin" && e.op === "add" && e.b.k === "const" &&
    (e.a.k === "reg" || e.a.k === "tmp");
}

const barrier = (s: Stmt) =>
  s.k === "store" || s.k === "call" || s.k === "asm" || (s.k === "set" && s.dst.k === "slot");

/**
 * One round of propagation; returns the rewritten function and whether anything changed. With
 * `simplified`, every expression of `fn` is already simplified (the previous round's output):
 * only the statements this round rewrites are simplified again.
 */
export function propagateOnce(
  fn: IrFunction,
  simplified = false,
): { fn: IrFunction; changed: boolean } {
  const uses = countUses(fn);
  const inline = new Map<string, Expr>();
  // The variable of each key in `inline` (for the size limit below).
  const inlined = new Map<string, Var>();
  for (const b of fn.blocks.values()) {
    b.stmts.forEach((s, i) => {
      if (s.k !== "set" || s.dst.k === "slot") return;
      const key = varKey(s.dst);
      const n = uses.count.get(key) ?? 0;
      if (n === 0) return;
      inlined.set(key, s.dst);
      if (cheap(s.src) && !readsMemory(s.src)) {
        inline.set(key, s.src);
        return;
      }
      if (n !== 1 || uses.inPhi.has(key) || exprLarger(s.src, MAX_INLINED_SIZE)) return;
      if (s.src.k === "intr" && s.src.name.startsWith("__flags_")) return;
      if (!readsMemory(s.src)) {
        inline.set(key, s.src);
        return;
      }
      const site = uses.site.get(key);
      if (!site || site.block !== b.start || site.index <= i) return;
      const end = Math.min(site.index, b.stmts.length);
      for (let j = i + 1; j < end; j++) if (barrier(b.stmts[j]!)) return;
      // A use in the same statement as a barrier (a store of it, a call argument) is fine.
      inline.set(key, s.src);
    });
  }
  // A memory-free value may still stand for an inlined load (`t2 = t1 + 1` with `t1 = *p`):
  // such a value moves only as far as a load may.
  const tainted = (e: Expr, depth: number): boolean => {
    if (depth > 64) return true;
    if (readsMemory(e)) return true;
    return taintedVars(e, depth);
  };
  // The same below a node that reads no memory (its subexpressions read none either).
  const taintedVars = (e: Expr, depth: number): boolean => {
    if (depth > 64) return true;
    if (e.k === "reg" || e.k === "tmp") {
      const r = inline.get(varKey(e));
      return r !== undefined && tainted(r, depth + 1);
    }
    return someChild(e, (c) => taintedVars(c, depth + 1));
  };
  for (const b of fn.blocks.values()) {
    b.stmts.forEach((s, i) => {
      if (s.k !== "set" || s.dst.k === "slot") return;
      const key = varKey(s.dst);
      if (!inline.has(key) || readsMemory(s.src) || !tainted(s.src, 0)) return;
      const site = uses.site.get(key);
      let ok = (uses.count.get(key) ?? 0) === 1 && site !== undefined &&
        site.block === b.start && site.index > i;
      if (ok) {
        const end = Math.min(site!.index, b.stmts.length);
        for (let j = i + 1; j < end; j++) if (barrier(b.stmts[j]!)) ok = false;
      }
      if (!ok) inline.delete(key);
    });
  }
  // Chains of single uses (`eax += ecx` ten thousand times) would inline into one giant tree:
  // a value whose inlined size passes the limit stays a variable, which cuts the chain.
  const resolvedSize = new Map<string, number>();
  const sizeOf = (e: Expr, depth: number): number => {
    if (e.k === "reg" || e.k === "tmp") {
      const key = varKey(e);
      const src = inline.get(key);
      if (!src) return 1;
      const known = resolvedSize.get(key);
      if (known !== undefined) return known;
      resolvedSize.set(key, 1); // a cycle counts as a leaf
      const n = depth > 200 ? Infinity : sizeOf(src, depth + 1);
      if (n > MAX_INLINED_SIZE) {
        inline.delete(key);
        resolvedSize.set(key, 1);
        return 1;
      }
      resolvedSize.set(key, n);
      return n;
    }
    switch (e.k) {
      case "load":
        return 1 + sizeOf(e.addr, depth + 1);
      case "bin":
        return 1 + sizeOf(e.a, depth + 1) + sizeOf(e.b, depth + 1);
      case "un":
      case "ext":
      case "trunc":
        return 1 + sizeOf(e.a, depth + 1);
      case "select":
        return 1 + sizeOf(e.c, depth + 1) + sizeOf(e.t, depth + 1) + sizeOf(e.f, depth + 1);
      case "intr": {
        let n = 1;
        for (const a of e.args) n += sizeOf(a, depth + 1);
        return n;
      }
      default:
        return 1;
    }
  };
  for (const key of [...inline.keys()]) sizeOf(inlined.get(key)!, 0);
  if (inline.size === 0) return { fn, changed: false };
  const resolve = (e: Expr, depth: number): Expr => {
    if (depth > 64) return e;
    if (e.k === "reg" || e.k === "tmp") {
      const r = inline.get(varKey(e));
      return r ? resolveDeep(r, depth + 1) : e;
    }
    return e;
  };
  const resolveDeep = (e: Expr, depth: number): Expr => {
    const leaf = resolve(e, depth);
    if (leaf !== e) return leaf;
    switch (e.k) {
      case "reg":
      case "tmp":
      case "const":
      case "slot":
      case "addr":
        return e;
    }
    return simplifyShallow(e, depth);
  };
  const simplifyShallow = (e: Expr, depth: number): Expr => {
    let changed = false;
    const rebuilt = mapChildren(e, (c) => {
      const r = resolveDeep(c, depth);
      if (r !== c) changed = true;
      return r;
    });
    return changed ? rebuilt : e;
  };
  const out = substitute(fn, (e) => {
    if (e.k === "reg" || e.k === "tmp") {
      const r = resolve(e, 0);
      return r === e ? undefined : r;
    }
    return undefined;
  });
  // Definitions whose every use was replaced are now dead; DCE removes them.
  return { fn: simplified ? simplifyChanged(fn, out) : simplifyAll(out), changed: true };
}

/**
 * Simplifies what {@link substitute} rewrote in `after` (phis, statements and terminators that
 * are not the same objects as in `before`); the rest is simplified already, and simplifying a
 * simplified expression gives it back.
 */
function simplifyChanged(before: IrFunction, after: IrFunction): IrFunction {
  const blocks = new Map<number, IrBlock>();
  for (const [k, b] of after.blocks) {
    const old = before.blocks.get(k);
    if (b === old || !old) {
      blocks.set(k, old ? b : simplifyBlock(b));
      continue;
    }
    const phis = b.phis === old.phis
      ? b.phis
      : b.phis.map((p, i) => p === old.phis[i] ? p : { dst: p.dst, args: p.args.map(simplify) });
    const stmts = b.stmts === old.stmts
      ? b.stmts
      : b.stmts.map((s, i) => s === old.stmts[i] ? s : mapStmt(s, simplify));
    const term = b.term === old.term ? b.term : mapTerm(b.term, simplify);
    blocks.set(k, { ...b, phis, stmts, term });
  }
  return { ...after, blocks };
}

function simplifyBlock(b: IrBlock): IrBlock {
  return {
    ...b,
    phis: b.phis.map((p) => ({ dst: p.dst, args: p.args.map(simplify) })),
    stmts: b.stmts.map((s) => mapStmt(s, simplify)),
    term: mapTerm(b.term, simplify),
  };
}

/** Simplifies every expression of `fn`. */
export function simplifyAll(fn: IrFunction): IrFunction {
  return substitute(fn, (e) => {
    const s = simplify(e);
    return s;
  });
}

/**
 * Propagation and dead-code elimination, round after round until nothing changes (at most 64
 * rounds); `check` runs between rounds with the function so far (the budget: it throws to stop,
 * and may keep what it was given, a correct program). `simplified`: every expression of `fn` is
 * a fixpoint of {@link simplify} already (see {@link cappedSimplifications}).
 */
export function propagate(
  fn: IrFunction,
  check: (sofar: IrFunction) => unknown = () => {},
  simplified = false,
): IrFunction {
  let cur = fn;
  for (let round = 0; round < 64; round++) {
    // The first round simplifies everything (earlier passes leave unsimplified expressions),
    // unless that was just done.
    const r = propagateOnce(cur, round > 0 || simplified);
    // A round that changed nothing hands back the previous round's output, which dead-code
    // elimination has already swept (sweeping again removes nothing).
    if (!r.changed && round > 0) break;
    cur = eliminateDeadCode(r.fn);
    // A loop's phi whose value comes back unchanged (`esp` after pushing a call's arguments and
    // popping them) merges one value once propagation has shown it: it is that value.
    const flat = removeTrivialPhis(cur);
    if (flat !== cur) {
      // What it substituted (`esp.0 - 0x1c` into `esp.3 - 16`) is simplified now: the next
      // round simplifies only what it rewrites.
      cur = simplifyAll(flat);
      check(cur);
      continue;
    }
    if (!r.changed) break;
    check(cur);
  }
  return cur;
}
