/**
 * SAILR's structuring metric.
 *
 * @module
 */

import type { Stmt } from "./types.ts";

/** The number of `goto` statements in `tree` (SAILR's structuring metric). */
export function countGotos<B, C>(tree: Stmt<B, C>): number {
  let n = 0;
  const stack: Array<Stmt<B, C>> = [tree];
  while (stack.length > 0) {
    const s = stack.pop()!;
    switch (s.kind) {
      case "goto":
        n++;
        break;
      case "seq":
        stack.push(...s.items);
        break;
      case "if":
        stack.push(s.then);
        if (s.else !== undefined) stack.push(s.else);
        break;
      case "loop":
      case "while":
      case "doWhile":
        stack.push(s.body);
        break;
      case "for":
        stack.push(s.body, s.step);
        break;
      case "switch":
        for (const c of s.cases) stack.push(c.body);
        break;
    }
  }
  return n;
}
