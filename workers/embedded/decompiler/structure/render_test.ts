import assert from "node:assert/strict";
import { render } from "./render.ts";
import { countGotos } from "./count_gotos.ts";
import type { Cond, Stmt } from "./types.ts";

type S = Stmt<string, string>;
const atom = (c: string, block = 0): Cond<string> => ({ kind: "atom", cond: c, block });
const body = (t: string): S => ({ kind: "block", id: 0, body: t });

const tree: S = {
  kind: "seq",
  items: [
    { kind: "label", id: 0x10 },
    body("x = 1;"),
    {
      kind: "if",
      cond: { kind: "and", left: atom("a"), right: { kind: "not", of: atom("b < c") } },
      then: { kind: "goto", label: 0x10 },
      else: {
        kind: "if",
        cond: { kind: "or", left: atom("d"), right: atom("e") },
        then: { kind: "return", block: 1 },
        else: { kind: "stop", block: 2 },
      },
    },
    {
      kind: "doWhile",
      body: {
        kind: "switch",
        value: "x",
        block: 3,
        cases: [
          { values: [1n, 2n], isDefault: false, body: { kind: "continue" } },
          { values: [], isDefault: true, body: { kind: "break" } },
        ],
      },
      cond: atom("f"),
    },
    { kind: "label", id: 0x20 },
  ],
};

Deno.test("render() prints C with else-if chains, parenthesised atoms and labels", () => {
  assert.deepEqual(render(tree, (b) => [b], (c) => c, { indent: "  " }), [
    "label_10:",
    "x = 1;",
    "if (a && !(b < c)) {",
    "  goto label_10;",
    "} else if (d || e) {",
    "  return;",
    "} else {",
    "  /* does not return */",
    "}",
    "do {",
    "  switch (x) {",
    "  case 1:",
    "  case 2:",
    "    continue;",
    "  default:",
    "    break;",
    "  }",
    "} while (f);",
    "label_20: ;",
  ]);
});

Deno.test("render() names labels with the caller's function", () => {
  const lines = render(tree, (b) => [b], (c) => c, { label: (id) => `L${id}` });
  assert.equal(lines[0], "L16:");
  assert.equal(lines[3], "    goto L16;");
});

Deno.test("countGotos() counts gotos at every depth", () => {
  assert.equal(countGotos(tree), 1);
  const two: S = { kind: "loop", body: { kind: "seq", items: [tree, { kind: "goto", label: 1 }] } };
  assert.equal(countGotos(two), 2);
});
