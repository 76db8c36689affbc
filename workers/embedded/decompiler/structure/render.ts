/**
 * C-like text of a structured tree, for tests, benchmarks and as a default
 * printer for the decompiler core.
 *
 * @module
 */

import type { Cond, Stmt } from "./types.ts";

/** Printing options of {@linkcode render}. */
export interface RenderOptions {
  /** One indentation step. Default four spaces. */
  indent?: string;
  /** The name of the label of block `id`. Default `label_<hex id>`. */
  label?: (id: number) => string;
}

/**
 * Renders `tree` as lines of C. `printBody` gives the lines of a block body,
 * `printCond` the text of an atom (also of a switch value); atoms with
 * spaces are parenthesised under `!`, `&&` and `||`.
 */
export function render<B, C>(
  tree: Stmt<B, C>,
  printBody: (body: B, id: number) => string[],
  printCond: (c: C) => string,
  options: RenderOptions = {},
): string[] {
  const step = options.indent ?? "    ";
  const labelName = options.label ?? ((id: number) => `label_${id.toString(16)}`);
  const out: string[] = [];
  const cond = (c: Cond<C>, inner: boolean): string => {
    switch (c.kind) {
      case "atom": {
        const t = printCond(c.cond);
        return inner && /\s/.test(t) ? `(${t})` : t;
      }
      case "not":
        return `!${cond(c.of, true)}`;
      case "and":
      case "or": {
        const op = c.kind === "and" ? " && " : " || ";
        const t = cond(c.left, true) + op + cond(c.right, true);
        return inner ? `(${t})` : t;
      }
    }
  };
  // A `for` step is one block of one statement: its text without the `;`.
  const forStep = (s: Stmt<B, C>): string =>
    s.kind === "block" ? printBody(s.body, s.id).join(" ").replace(/;\s*$/, "") : "";
  const walk = (s: Stmt<B, C>, pad: string): void => {
    const block = (b: Stmt<B, C>): void => walk(b, pad + step);
    switch (s.kind) {
      case "seq":
        s.items.forEach((x, i) => {
          // C wants a statement after a label: an empty one where none follows.
          if (x.kind === "label" && i + 1 < s.items.length) out.push(`${labelName(x.id)}:`);
          else walk(x, pad);
        });
        break;
      case "block":
        for (const l of printBody(s.body, s.id)) out.push(pad + l);
        break;
      case "if": {
        out.push(`${pad}if (${cond(s.cond, false)}) {`);
        block(s.then);
        let e = s.else;
        while (e !== undefined) {
          if (e.kind === "if") {
            out.push(`${pad}} else if (${cond(e.cond, false)}) {`);
            block(e.then);
            e = e.else;
          } else {
            out.push(`${pad}} else {`);
            block(e);
            e = undefined;
          }
        }
        out.push(`${pad}}`);
        break;
      }
      case "while":
        out.push(`${pad}while (${cond(s.cond, false)}) {`);
        block(s.body);
        out.push(`${pad}}`);
        break;
      case "doWhile":
        out.push(`${pad}do {`);
        block(s.body);
        out.push(`${pad}} while (${cond(s.cond, false)});`);
        break;
      case "for":
        out.push(`${pad}for (; ${cond(s.cond, false)}; ${forStep(s.step)}) {`);
        block(s.body);
        out.push(`${pad}}`);
        break;
      case "loop":
        out.push(`${pad}for (;;) {`);
        block(s.body);
        out.push(`${pad}}`);
        break;
      case "break":
      case "continue":
        out.push(`${pad}${s.kind};`);
        break;
      case "switch":
        out.push(`${pad}switch (${printCond(s.value)}) {`);
        for (const c of s.cases) {
          for (const v of c.values) out.push(`${pad}case ${v}:`);
          if (c.isDefault) out.push(`${pad}default:`);
          block(c.body);
        }
        out.push(`${pad}}`);
        break;
      case "goto":
        out.push(`${pad}goto ${labelName(s.label)};`);
        break;
      case "label":
        out.push(`${labelName(s.id)}: ;`);
        break;
      case "return":
        out.push(`${pad}return;`);
        break;
      case "stop":
        out.push(`${pad}/* does not return */`);
        break;
    }
  };
  walk(tree, "");
  return out;
}
