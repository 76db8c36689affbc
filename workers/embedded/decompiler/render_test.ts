import assert from "node:assert/strict";
import { SYSV_X64 } from "./abi/conventions.ts";
import type { Decompiled } from "./decompile.ts";
import type { EmitNames } from "./emit.ts";
import { fitRendered } from "./fit.ts";
import { constant, type IrFunction, type Stmt } from "./ir.ts";
import { render } from "./render.ts";

const NAMES: EmitNames = {
  functionAt: () => undefined,
  dataAt: () => undefined,
  stringAt: () => undefined,
};

/**
 * A function of `n` statements in one block, `v = v + i` at 0x1000 + 4 i, as a decompilation
 * that printed it whole would be ~`n` lines.
 */
function bigFunction(n: number): Decompiled {
  const v = { k: "reg", name: "rax", size: 8, ver: 1 } as const;
  const stmts: Stmt[] = Array.from({ length: n }, (_, i) => ({
    k: "set",
    dst: v,
    src: { k: "bin", op: "add", a: v, b: constant(i, 8), size: 8 },
    at: 0x1000 + 4 * i,
  }));
  const end = 0x1000 + 4 * n;
  const ir: IrFunction = {
    entry: 0x1000,
    blocks: new Map([[0x1000, {
      start: 0x1000,
      end,
      stmts,
      phis: [],
      term: { k: "ret", value: v, at: end },
    }]]),
    arch: { ptr: 8, sp: "rsp", retAddr: 8 },
    warnings: [],
  };
  return {
    ir,
    tree: {
      kind: "seq",
      items: [{ kind: "block", id: 0x1000, body: 0x1000 }, { kind: "return", block: 0x1000 }],
    },
    frame: { scalars: new Map(), arrays: new Map() },
    cc: SYSV_X64,
    types: new Map(),
    params: [],
    returns: true,
    instructions: n + 1,
    unlifted: 0,
    gotos: 0,
    warnings: [],
    stages: {},
  };
}

Deno.test("render() stops formatting at the byte cap and still counts the lines and addresses", () => {
  const n = 50_000;
  const d = bigFunction(n);
  // Count what is formatted: every printed statement asks for a comment at its address.
  let formatted = 0;
  const names: EmitNames = { ...NAMES, commentAt: () => (formatted++, undefined) };
  const whole = render(d, "big", names);
  assert.equal(whole.stopped, undefined);
  assert.equal(formatted, n);
  formatted = 0;
  const r = render(d, "big", names, new Map(), { maxBytes: 8_000 });
  assert.ok(r.stopped, "printing stopped");
  assert.equal(r.stopped.why, "size");
  // Only the lines that fit (and one over) were formatted, not the 50,000.
  const bodyLines = r.code.split("\n").filter((l) => l.startsWith("    v")).length;
  assert.ok(bodyLines > 50 && bodyLines < 400, `${bodyLines} lines printed`);
  assert.ok(formatted < 400, `${formatted} statements formatted`);
  // The whole function's length is still known, and what was not printed is where it is.
  assert.equal(r.stopped.total, whole.code.split("\n").length - 1);
  assert.equal(r.stopped.rest[0], 0x1000 + 4 * bodyLines);
  assert.equal(r.stopped.rest.at(-1), 0x1000 + 4 * n);

  // Cut to the result: the line map ends at the cut, and the note says of how many lines and
  // where to read on.
  const fitted = fitRendered(r, 8_000);
  const kept = fitted.code.split("\n").length - 2;
  assert.ok(fitted.lines.every((l) => l.line <= kept));
  assert.equal(fitted.lines.at(-1)?.line, kept);
  assert.match(
    fitted.cut ?? "",
    new RegExp(`^output cut after line ${kept} of ${r.stopped.total} `),
  );
  const lastPrinted = fitted.lines.at(-1)!.addresses[0]!;
  assert.match(fitted.cut ?? "", new RegExp(`is 0x${(lastPrinted + 4).toString(16)}:`));
});

Deno.test("render() stops when the time is up, and the cut says so", () => {
  const d = bigFunction(5_000);
  let asked = 0;
  const r = render(d, "big", NAMES, new Map(), { outOfTime: () => ++asked > 2 });
  assert.equal(r.stopped?.why, "time");
  const fitted = fitRendered(r, 1 << 20);
  assert.match(fitted.cut ?? "", /printing ran out of the function's time budget/);
  assert.ok(!fitted.code.includes("\n}\n"), "a stopped body is not closed as if whole");
});

Deno.test("fitRendered() names the lowest address no printed line comes from", () => {
  // A loop printed before the code at lower addresses: line 2 of the rest maps to 0x1000, which
  // was printed already; the first address not yet seen is 0x1010.
  const code = Array.from({ length: 400 }, (_, i) => `    line_${i} = ${"x".repeat(40)};`);
  const at = (i: number) => i < 200 ? 0x2000 + 4 * i : i === 200 ? 0x1000 : 0x1010 + 4 * (i - 201);
  const lines = code.map((_, i) => ({ line: i + 1, addresses: [at(i)] }));
  lines[0]!.addresses.push(0x1000);
  const cut = fitRendered({ code: code.join("\n") + "\n", lines, variables: [] }, 12_000);
  const kept = cut.lines.at(-1)!.line;
  assert.ok(kept > 1 && kept < 200, `kept ${kept}`);
  // Not 0x…: the next line's address (the next mapped line after the cut is in 0x2000's range).
  assert.match(cut.cut ?? "", /lowest instruction address no printed line comes from is 0x1010:/);
});
