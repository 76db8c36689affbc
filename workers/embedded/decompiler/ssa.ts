/**
 * SSA construction over registers (Braun et al., "Simple and Efficient Construction of SSA
 * Form", CC 2013): blocks are filled in reverse post-order and sealed once all their
 * predecessors are filled; a read with no local definition asks the predecessors, placing a phi
 * where they merge. Version 0 of a register is its value on entry. Temporaries are already
 * assigned once; stack slots stay memory-like variables.
 */

import {
  type Expr,
  type IrBlock,
  type IrFunction,
  mapChildren,
  mapStmt,
  mapTerm,
  type Phi,
  predecessors,
  type Reg,
  someChild,
  type Stmt,
  successors,
  varKey,
} from "./ir.ts";

/** Blocks reachable from the entry, in reverse post-order. */
export function reversePostOrder(fn: IrFunction): number[] {
  const seen = new Set<number>();
  const post: number[] = [];
  // Iterative DFS: a 50,000-block function must not overflow the stack.
  const stack: [number, number][] = [[fn.entry, 0]];
  seen.add(fn.entry);
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const b = fn.blocks.get(top[0]);
    const succ = b ? successors(b.term) : [];
    if (top[1] < succ.length) {
      const s = succ[top[1]++]!;
      if (!seen.has(s) && fn.blocks.has(s)) {
        seen.add(s);
        stack.push([s, 0]);
      }
    } else {
      post.push(top[0]);
      stack.pop();
    }
  }
  return post.reverse();
}

/** Drops unreachable blocks; gives the entry a predecessor-free head when a loop returns to it. */
export function normalize(fn: IrFunction): IrFunction {
  const order = reversePostOrder(fn);
  const blocks = new Map<number, IrBlock>();
  const preds = predecessors(fn);
  let entry = fn.entry;
  if ((preds.get(fn.entry) ?? []).length > 0) {
    entry = Math.min(-1, ...fn.blocks.keys()) - 1;
    blocks.set(entry, {
      start: entry,
      end: entry,
      stmts: [],
      phis: [],
      term: { k: "jump", to: fn.entry, at: fn.entry },
    });
  }
  for (const b of order) blocks.set(b, fn.blocks.get(b)!);
  return { ...fn, entry, blocks };
}

/** Puts `fn` (normalized) into SSA form over registers. */
export function toSsa(fn: IrFunction): IrFunction {
  const preds = predecessors(fn);
  const order = reversePostOrder(fn);
  const current = new Map<number, Map<string, Expr>>();
  const counters = new Map<string, number>();
  const sealed = new Set<number>();
  const filled = new Set<number>();
  const incomplete = new Map<number, Phi[]>();
  const phis = new Map<number, Phi[]>();
  for (const b of fn.blocks.keys()) {
    current.set(b, new Map());
    phis.set(b, []);
  }

  const fresh = (name: string, size: number): Reg => {
    const ver = (counters.get(name) ?? 0) + 1;
    counters.set(name, ver);
    return { k: "reg", name, size, ver };
  };
  const write = (name: string, block: number, value: Expr) => current.get(block)!.set(name, value);
  const read = (name: string, size: number, block: number): Expr => {
    const local = current.get(block)!.get(name);
    if (local) return local;
    let value: Expr;
    const ps = preds.get(block) ?? [];
    if (!sealed.has(block)) {
      const phi: Phi = { dst: fresh(name, size), args: [] };
      incomplete.get(block)?.push(phi) ?? incomplete.set(block, [phi]);
      phis.get(block)!.push(phi);
      value = phi.dst;
    } else if (ps.length === 0) {
      value = { k: "reg", name, size, ver: 0 };
    } else if (ps.length === 1) {
      value = read(name, size, ps[0]!);
    } else {
      const phi: Phi = { dst: fresh(name, size), args: [] };
      phis.get(block)!.push(phi);
      write(name, block, phi.dst);
      for (const p of ps) phi.args.push(read(name, size, p));
      value = phi.dst;
    }
    write(name, block, value);
    return value;
  };
  const seal = (block: number) => {
    for (const phi of incomplete.get(block) ?? []) {
      const r = phi.dst as Reg;
      for (const p of preds.get(block) ?? []) phi.args.push(read(r.name, r.size, p));
    }
    incomplete.delete(block);
    sealed.add(block);
  };
  const trySeal = (block: number) => {
    if (!sealed.has(block) && (preds.get(block) ?? []).every((p) => filled.has(p))) seal(block);
  };

  const renamed = new Map<number, IrBlock>();
  for (const start of order) {
    trySeal(start);
    const b = fn.blocks.get(start)!;
    const use = (e: Expr): Expr => {
      if (e.k === "reg") return e.ver === undefined ? read(e.name, e.size, start) : e;
      return mapChildren(e, use);
    };
    const stmts: Stmt[] = [];
    for (const s of b.stmts) {
      const r = mapStmt(s, use);
      if (r.k === "set" && r.dst.k === "reg") {
        const d = fresh(r.dst.name, r.dst.size);
        write(d.name, start, d);
        stmts.push({ ...r, dst: d });
      } else if (r.k === "call") {
        const defs = r.defs.map((d) => {
          const v = fresh(d.name, d.size);
          write(d.name, start, v);
          return v;
        });
        stmts.push({ ...r, defs });
      } else stmts.push(r);
    }
    const term = mapTerm(b.term, use);
    renamed.set(start, { ...b, stmts, term, phis: phis.get(start)! });
    filled.add(start);
    for (const s of successors(b.term)) if (fn.blocks.has(s)) trySeal(s);
  }
  for (const b of order) if (!sealed.has(b)) seal(b);
  return removeTrivialPhis({ ...fn, blocks: renamed });
}

/** Replaces phis whose arguments are all one value (or the phi itself) by that value. */
export function removeTrivialPhis(fn: IrFunction): IrFunction {
  const subst = new Map<string, Expr>();
  const resolve = (e: Expr): Expr => {
    let cur = e;
    for (let i = 0; i < 10000; i++) {
      if (cur.k !== "reg" && cur.k !== "tmp") return cur;
      const next = subst.get(varKey(cur));
      if (!next) return cur;
      cur = next;
    }
    return cur;
  };
  let changed = true;
  while (changed) {
    changed = false;
    for (const b of fn.blocks.values()) {
      for (const phi of b.phis) {
        const key = varKey(phi.dst);
        if (subst.has(key)) continue;
        let same: Expr | undefined;
        let trivial = true;
        for (const raw of phi.args) {
          const a = resolve(raw);
          if ((a.k === "reg" || a.k === "tmp") && varKey(a) === key) continue;
          if (same && !sameValue(same, a)) {
            trivial = false;
            break;
          }
          same = a;
        }
        // A value read from memory stays where it was read (a store may come between).
        if (trivial && same && !readsMemory(same)) {
          subst.set(key, same);
          changed = true;
        }
      }
    }
  }
  if (subst.size === 0) return fn;
  return substitute(fn, (e) => {
    if (e.k === "reg" || e.k === "tmp") {
      const r = resolve(e);
      return r === e ? undefined : r;
    }
    return undefined;
  }, (phi) => !subst.has(varKey(phi.dst)));
}

function sameValue(a: Expr, b: Expr): boolean {
  if (a.k === "const" && b.k === "const") return a.value === b.value && a.size === b.size;
  if ((a.k === "reg" || a.k === "tmp") && (b.k === "reg" || b.k === "tmp")) {
    return varKey(a) === varKey(b);
  }
  // After propagation a phi's arguments can be expressions: `esp.0 - 0x1c` on every way in.
  if (a.k === "bin" && b.k === "bin") {
    return a.op === b.op && a.size === b.size && sameValue(a.a, b.a) && sameValue(a.b, b.b);
  }
  return false;
}

function readsMemory(e: Expr): boolean {
  return e.k === "load" || someChild(e, readsMemory);
}

/**
 * Rewrites every expression of `fn` bottom-up: `leaf(e)` returns a replacement for a node or
 * undefined to keep it; `keepPhi` filters phis.
 */
export function substitute(
  fn: IrFunction,
  leaf: (e: Expr) => Expr | undefined,
  keepPhi: (phi: Phi) => boolean = () => true,
): IrFunction {
  const rw = (e: Expr): Expr => {
    const r = leaf(e);
    if (r !== undefined) return r;
    return mapChildren(e, rw);
  };
  // Unchanged phis, statements and blocks are kept as they are (nothing is ever changed in
  // place), which saves rebuilding the whole function when a round rewrites a few uses.
  const blocks = new Map<number, IrBlock>();
  for (const [k, b] of fn.blocks) {
    let phisChanged = false;
    const phis: Phi[] = [];
    for (const p of b.phis) {
      if (!keepPhi(p)) {
        phisChanged = true;
        continue;
      }
      const args = p.args.map(rw);
      if (args.some((a, i) => a !== p.args[i])) {
        phisChanged = true;
        phis.push({ dst: p.dst, args });
      } else phis.push(p);
    }
    let stmts: Stmt[] | undefined;
    for (let i = 0; i < b.stmts.length; i++) {
      const s = b.stmts[i]!;
      const r = mapStmt(s, rw);
      if (r !== s && !stmts) stmts = b.stmts.slice(0, i);
      stmts?.push(r);
    }
    const term = mapTerm(b.term, rw);
    blocks.set(
      k,
      phisChanged || stmts || term !== b.term
        ? { ...b, phis: phisChanged ? phis : b.phis, stmts: stmts ?? b.stmts, term }
        : b,
    );
  }
  return { ...fn, blocks };
}
