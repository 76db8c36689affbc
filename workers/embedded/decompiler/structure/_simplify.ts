/**
 * Meaning-preserving rewrites of an emitted statement tree toward what a
 * person would write: `if (c) { ...; return; } else { B }` becomes
 * `if (c) { ...; return; } B`, `for (;;) { if (!c) break; ... }` becomes
 * `while (c) { ... }`, a trailing `if (!c) break;` becomes `do ... while (c)`,
 * a goto to the very next statement disappears, unused labels go.
 *
 * @module
 */

import { not } from "./_graph.ts";
import type { Stmt } from "./types.ts";

/** Number of gotos to each label, kept up to date as rewrites remove gotos. */
export type GotoCounts = Map<number, number>;

/** Whether a block body can be a `for` loop's step. */
export type IsStep<B> = (body: B) => boolean;

/** Simplifies `list` (a sequence's items); returns the new items. */
export function simplify<B, C>(
  list: Array<Stmt<B, C>>,
  counts: GotoCounts,
  isStep: IsStep<B> = () => false,
): Array<Stmt<B, C>> {
  const out: Array<Stmt<B, C>> = [];
  for (const s of list) push(out, simplifyOne(s, counts, isStep));
  // A goto straight to the label that follows it does nothing.
  for (let i = out.length - 2; i >= 0; i--) {
    const g = out[i]!;
    const l = out[i + 1]!;
    if (g.kind === "goto" && l.kind === "label" && l.id === g.label) {
      out.splice(i, 1);
      counts.set(g.label, (counts.get(g.label) ?? 1) - 1);
    }
  }
  return out;
}

function push<B, C>(out: Array<Stmt<B, C>>, s: Stmt<B, C> | Array<Stmt<B, C>>): void {
  if (Array.isArray(s)) {
    for (const x of s) push(out, x);
  } else if (s.kind === "seq") {
    for (const x of s.items) push(out, x);
  } else {
    out.push(s);
  }
}

function simplifyOne<B, C>(
  s: Stmt<B, C>,
  counts: GotoCounts,
  isStep: IsStep<B>,
): Stmt<B, C> | Array<Stmt<B, C>> {
  const sub = (x: Stmt<B, C>) => simplify(items(x), counts, isStep);
  switch (s.kind) {
    case "seq":
      return simplify(s.items, counts, isStep);
    case "if": {
      const then = sub(s.then);
      const els = s.else === undefined ? [] : sub(s.else);
      if (then.length === 0 && els.length === 0) return [];
      if (then.length === 0) return [{ kind: "if", cond: not(s.cond), then: seq(els) }];
      if (els.length === 0) return [{ kind: "if", cond: s.cond, then: seq(then) }];
      // An arm that cannot complete needs no `else` after it; keep the shorter one inside.
      const thenEnds = !canComplete(then);
      const elsEnds = !canComplete(els);
      if (thenEnds && (!elsEnds || size(then) <= size(els))) {
        return [{ kind: "if", cond: s.cond, then: seq(then) }, ...els];
      }
      if (elsEnds) return [{ kind: "if", cond: not(s.cond), then: seq(els) }, ...then];
      return [{ kind: "if", cond: s.cond, then: seq(then), else: seq(els) }];
    }
    case "loop":
      return loop(sub(s.body), counts, isStep);
    case "while":
      return { kind: "while", cond: s.cond, body: seq(sub(s.body)) };
    case "doWhile":
      return { kind: "doWhile", cond: s.cond, body: seq(sub(s.body)) };
    case "for":
      return { ...s, body: seq(sub(s.body)) };
    case "switch":
      return { ...s, cases: s.cases.map((c) => ({ ...c, body: seq(sub(c.body)) })) };
    default:
      return s;
  }
}

/**
 * `for (;;)` with a leading or trailing exit test becomes `while` or
 * `do … while` (or `for (; c; step)` when gotos in the body go to a step
 * that ends it); gotos to a label that ends the loop body become `continue`.
 */
function loop<B, C>(body: Array<Stmt<B, C>>, counts: GotoCounts, isStep: IsStep<B>): Stmt<B, C> {
  const first = body[0];
  if (first !== undefined && isBreakIf(first)) {
    const cond = not(first.cond);
    const rest = body.slice(1);
    // `while (c) { …; goto L; …; L: i = i + 1; }`: the step runs on `continue` in a `for`,
    // so the gotos to it can be `continue` (not so when a `continue` is there already: it
    // skips the step).
    const step = rest[rest.length - 1];
    const label = rest[rest.length - 2];
    if (
      step?.kind === "block" && label?.kind === "label" && isStep(step.body) &&
      (counts.get(label.id) ?? 0) > 0 && !rest.some((x) => hasJump(x, "continue"))
    ) {
      const inner = continues(rest.slice(0, -1), counts);
      if (inner.length === 0 || inner[inner.length - 1]!.kind !== "label") {
        return { kind: "for", cond, body: seq(inner), step };
      }
    }
    return { kind: "while", cond, body: seq(continues(rest, counts)) };
  }
  const last = body[body.length - 1];
  if (last !== undefined && isBreakIf(last)) {
    const rest = body.slice(0, -1);
    // `continue` in a do-while tests the condition first: only safe without one.
    if (!rest.some((x) => hasJump(x, "continue"))) {
      return { kind: "doWhile", body: seq(continues(rest, counts)), cond: not(last.cond) };
    }
  }
  return { kind: "loop", body: seq(continues(body, counts)) };
}

/**
 * When `body` (a loop body) ends with a label that only gotos in it name,
 * and none from inside a nested loop, those gotos are `continue`s: going to
 * the end of the body is what `continue` does in every loop form.
 */
function continues<B, C>(body: Array<Stmt<B, C>>, counts: GotoCounts): Array<Stmt<B, C>> {
  const last = body[body.length - 1];
  if (last === undefined || last.kind !== "label") return body;
  const id = last.id;
  const total = counts.get(id) ?? 0;
  let here = 0;
  const count = (s: Stmt<B, C>): void => {
    if (s.kind === "goto" && s.label === id) here++;
    else if (s.kind === "seq") s.items.forEach(count);
    else if (s.kind === "if") {
      count(s.then);
      if (s.else !== undefined) count(s.else);
    } else if (s.kind === "switch") s.cases.forEach((c) => count(c.body));
  };
  body.forEach(count);
  if (here !== total) return body;
  const swap = (s: Stmt<B, C>): Stmt<B, C> => {
    switch (s.kind) {
      case "goto":
        return s.label === id ? { kind: "continue" } : s;
      case "seq":
        return { kind: "seq", items: s.items.map(swap) };
      case "if":
        return s.else === undefined
          ? { ...s, then: swap(s.then) }
          : { ...s, then: swap(s.then), else: swap(s.else) };
      case "switch":
        return { ...s, cases: s.cases.map((c) => ({ ...c, body: swap(c.body) })) };
      default:
        return s;
    }
  };
  counts.set(id, 0);
  // A `continue` that ends the body is the same as falling off its end.
  const out = body.slice(0, -1).map(swap);
  while (out.length > 0 && out[out.length - 1]!.kind === "continue") out.pop();
  return out;
}

/**
 * `if (c) goto L; S…` where `L` is what runs after `S…` (the next label in
 * the same list, or what follows the list) becomes `if (!c) { S… }`, and a
 * `goto L` that ends a list followed by `L` goes: control falls there by
 * itself. `next` is the label that follows `list`, if any. Run before
 * {@linkcode pruneLabels} recounts the gotos.
 */
export function nestGotos<B, C>(
  list: Array<Stmt<B, C>>,
  duplicate: (body: B) => boolean,
  next: number | undefined = undefined,
  depth = 0,
): Array<Stmt<B, C>> {
  const out: Array<Stmt<B, C>> = [];
  list = copyEnd(list, next, duplicate);
  for (let i = 0; i < list.length; i++) {
    const s = list[i]!;
    const following = list[i + 1];
    const after = following === undefined
      ? next
      : following.kind === "label"
      ? following.id
      : undefined;
    if (depth < 64 && s.kind === "if" && s.else === undefined) {
      // The statements up to the first label, and the label that follows them.
      let end = i + 1;
      while (end < list.length && list[end]!.kind !== "label") end++;
      const region = end < list.length ? (list[end] as { id: number }).id : next;
      if (s.then.kind === "goto" && s.then.label === region) {
        if (end > i + 1) {
          const inner = nestGotos(list.slice(i + 1, end), duplicate, region, depth + 1);
          out.push({ kind: "if", cond: not(s.cond), then: seq(inner) });
        }
        i = end - 1;
        continue;
      }
      // `if (c) { …goto L…; return; } S…; L:` is `if (c) { … } else { S… }`, where the
      // arm's gotos to L can become nesting too.
      if (
        region !== undefined && end > i + 1 && !canComplete(items(s.then)) &&
        jumpsTo(s.then, region)
      ) {
        const withElse: Stmt<B, C> = { ...s, else: seq(list.slice(i + 1, end)) };
        out.push(nestIn(withElse, region, depth, duplicate));
        i = end - 1;
        continue;
      }
    }
    out.push(nestIn(s, after, depth, duplicate));
  }
  while (out.length > 0) {
    const last = out[out.length - 1]!;
    if (last.kind !== "goto" || last.label !== next || next === undefined) break;
    out.pop();
  }
  return out;
}

function nestIn<B, C>(
  s: Stmt<B, C>,
  next: number | undefined,
  depth: number,
  duplicate: (body: B) => boolean,
): Stmt<B, C> {
  const sub = (x: Stmt<B, C>, n: number | undefined) =>
    seq(nestGotos(items(x), duplicate, n, depth + 1));
  switch (s.kind) {
    case "if":
      return s.else === undefined
        ? { ...s, then: sub(s.then, next) }
        : { ...s, then: sub(s.then, next), else: sub(s.else, next) };
    case "loop":
    case "while":
    case "doWhile":
    case "for":
      return { ...s, body: sub(s.body, undefined) };
    case "switch":
      return { ...s, cases: s.cases.map((c) => ({ ...c, body: sub(c.body, undefined) })) };
    default:
      return s;
  }
}

/**
 * `if (c) { A } R` at the end of a list followed by label `L`, where `R`
 * is a small end (`return`, or a copyable block and `return`) and `A` jumps
 * to `L`: as `R` cannot complete, this is `if (!c) { R } A R`, which lets
 * {@linkcode nestGotos} turn `A`'s gotos to `L` into nesting.
 */
function copyEnd<B, C>(
  list: Array<Stmt<B, C>>,
  next: number | undefined,
  duplicate: (body: B) => boolean,
): Array<Stmt<B, C>> {
  if (next === undefined) return list;
  const n = list.length;
  const last = list[n - 1];
  if (last?.kind !== "return") return list;
  const prev = list[n - 2];
  const endLen = prev?.kind === "block" && prev.id === last.block ? 2 : 1;
  if (endLen === 2 && !duplicate((prev as { body: B }).body)) return list;
  const x = list[n - 1 - endLen];
  if (x?.kind !== "if" || x.else !== undefined || !jumpsTo(x.then, next)) return list;
  // An arm that cannot complete never runs into the end: no copy after it.
  if (!canComplete(items(x.then))) return list;
  const end = list.slice(n - endLen);
  return [
    ...list.slice(0, n - 1 - endLen),
    { kind: "if", cond: not(x.cond), then: seq(end) },
    ...items(x.then),
    ...end,
  ];
}

/** Whether `s` holds a goto to `label` outside nested loops and switches. */
function jumpsTo<B, C>(s: Stmt<B, C>, label: number): boolean {
  switch (s.kind) {
    case "goto":
      return s.label === label;
    case "seq":
      return s.items.some((x) => jumpsTo(x, label));
    case "if":
      return jumpsTo(s.then, label) || (s.else !== undefined && jumpsTo(s.else, label));
    default:
      return false;
  }
}

function isBreakIf<B, C>(s: Stmt<B, C>): s is Extract<Stmt<B, C>, { kind: "if" }> {
  return s.kind === "if" && s.else === undefined && s.then.kind === "break";
}

/** Whether `s` holds a `break`/`continue` bound to the loop around `s`. */
export function hasJump<B, C>(s: Stmt<B, C>, kind: "break" | "continue"): boolean {
  switch (s.kind) {
    case "break":
    case "continue":
      return s.kind === kind;
    case "seq":
      return s.items.some((x) => hasJump(x, kind));
    case "if":
      return hasJump(s.then, kind) || (s.else !== undefined && hasJump(s.else, kind));
    case "switch":
      // A `break` in a switch leaves the switch; a `continue` passes through it.
      return kind === "continue" && s.cases.some((c) => hasJump(c.body, kind));
    default:
      return false;
  }
}

/**
 * Whether control can reach the end of `list`, from its start or from any
 * label inside it (conservative: true when unsure).
 */
export function canComplete<B, C>(list: Array<Stmt<B, C>>): boolean {
  let reachable = true;
  for (const s of list) {
    if (reachable || hasLabel(s)) reachable = completes(s);
  }
  return reachable;
}

function completes<B, C>(s: Stmt<B, C>): boolean {
  switch (s.kind) {
    case "goto":
    case "break":
    case "continue":
    case "return":
    case "stop":
      return false;
    case "seq":
      return canComplete(s.items);
    case "if":
      return s.else === undefined || completes(s.then) || completes(s.else);
    case "loop":
      return hasJump(s.body, "break");
    case "for":
      return true;
    default:
      return true;
  }
}

function hasLabel<B, C>(s: Stmt<B, C>): boolean {
  switch (s.kind) {
    case "label":
      return true;
    case "seq":
      return s.items.some(hasLabel);
    case "if":
      return hasLabel(s.then) || (s.else !== undefined && hasLabel(s.else));
    case "loop":
    case "while":
    case "doWhile":
      return hasLabel(s.body);
    case "for":
      return hasLabel(s.body) || hasLabel(s.step);
    case "switch":
      return s.cases.some((c) => hasLabel(c.body));
    default:
      return false;
  }
}

function size<B, C>(list: Array<Stmt<B, C>>): number {
  let n = 0;
  for (const s of list) n += count(s);
  return n;
}

function count<B, C>(s: Stmt<B, C>): number {
  switch (s.kind) {
    case "seq":
      return size(s.items);
    case "if":
      return 1 + count(s.then) + (s.else === undefined ? 0 : count(s.else));
    case "loop":
    case "while":
    case "doWhile":
    case "for":
      return 1 + count(s.body);
    case "switch":
      return 1 + s.cases.reduce((a, c) => a + count(c.body), 0);
    default:
      return 1;
  }
}

/** A statement list as one statement. */
export function seq<B, C>(list: Array<Stmt<B, C>>): Stmt<B, C> {
  return list.length === 1 ? list[0]! : { kind: "seq", items: list };
}

/** A statement as a list. */
export function items<B, C>(s: Stmt<B, C>): Array<Stmt<B, C>> {
  return s.kind === "seq" ? s.items : [s];
}

/** Drops labels no goto names; returns the number of gotos, in all and per label. */
export function pruneLabels<B, C>(
  list: Array<Stmt<B, C>>,
): { list: Array<Stmt<B, C>>; gotos: number; counts: GotoCounts } {
  const targets: GotoCounts = new Map();
  let gotos = 0;
  const scan = (s: Stmt<B, C>): void => {
    switch (s.kind) {
      case "goto":
        gotos++;
        targets.set(s.label, (targets.get(s.label) ?? 0) + 1);
        break;
      case "seq":
        s.items.forEach(scan);
        break;
      case "if":
        scan(s.then);
        if (s.else !== undefined) scan(s.else);
        break;
      case "loop":
      case "while":
      case "doWhile":
      case "for":
        scan(s.body);
        break;
      case "switch":
        for (const c of s.cases) scan(c.body);
        break;
    }
  };
  list.forEach(scan);
  const prune = (s: Stmt<B, C>): Stmt<B, C> | undefined => {
    switch (s.kind) {
      case "label":
        return targets.has(s.id) ? s : undefined;
      case "seq":
        return seq(pruneList(s.items));
      case "if":
        return s.else === undefined
          ? { ...s, then: prune(s.then) ?? seq([]) }
          : { ...s, then: prune(s.then) ?? seq([]), else: prune(s.else) ?? seq([]) };
      case "loop":
      case "while":
      case "doWhile":
      case "for":
        return { ...s, body: prune(s.body) ?? seq([]) };
      case "switch":
        return { ...s, cases: s.cases.map((c) => ({ ...c, body: prune(c.body) ?? seq([]) })) };
      default:
        return s;
    }
  };
  const pruneList = (l: Array<Stmt<B, C>>): Array<Stmt<B, C>> => {
    const out: Array<Stmt<B, C>> = [];
    for (const s of l) {
      const p = prune(s);
      if (p !== undefined) out.push(p);
    }
    return out;
  };
  return { list: pruneList(list), gotos, counts: targets };
}
