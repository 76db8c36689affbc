/**
 * The contract between the decompiler core and the control-flow structurer.
 *
 * The structurer sees a generic control-flow graph: block bodies (`B`) and
 * branch conditions / switch values (`C`) are opaque to it, so the same code
 * serves every ISA and every stage of the core. It returns a statement tree
 * in which every reachable block appears once (a small block that ends the
 * function may also be copied in place of a goto, see
 * {@linkcode StructureOptions.duplicate}), and whose execution visits the
 * blocks in the same order as the graph does.
 *
 * @module
 */

/** How control leaves a block. Block ids are the caller's; they need not be dense. */
export type Terminator<C> =
  /** Unconditional jump. */
  | { kind: "jump"; to: number }
  /** Two-way branch: `then` is taken when `cond` is true. */
  | { kind: "branch"; cond: C; then: number; else: number }
  /**
   * Multi-way branch on `value`. Several cases may share a target. Without
   * `default`, a value that matches no case is taken as impossible (a bounds
   * check belongs in a block before the switch).
   */
  | {
    kind: "switch";
    value: C;
    cases: Array<{ values: bigint[]; to: number }>;
    default?: number;
  }
  /** The function returns after this block. */
  | { kind: "return" }
  /** No successor: a call that does not return, an unresolved indirect jump, a trap. */
  | { kind: "stop" };

/** One basic block of the input graph. */
export interface GraphBlock<B, C> {
  id: number;
  body: B;
  term: Terminator<C>;
}

/** The input graph: only blocks reachable from `entry` appear in the output. */
export interface Graph<B, C> {
  entry: number;
  blocks: Array<GraphBlock<B, C>>;
}

/**
 * A boolean condition over the caller's atoms. `block` is the id of the block
 * whose terminator the atom comes from: short-circuit recovery folds the
 * condition of an empty block into its predecessor's (`a && b`), and the id
 * keeps the line-to-address map exact.
 */
export type Cond<C> =
  | { kind: "atom"; cond: C; block: number }
  | { kind: "not"; of: Cond<C> }
  | { kind: "and"; left: Cond<C>; right: Cond<C> }
  | { kind: "or"; left: Cond<C>; right: Cond<C> };

/**
 * One case of a structured switch. Cases fall through in order as in C: a
 * body that can complete normally continues with the next case's body.
 * `values` may be empty for code inside the switch that only fallthrough
 * or a `goto` reaches; `isDefault` marks the `default:` label.
 */
export interface SwitchCase<B, C> {
  values: bigint[];
  isDefault: boolean;
  body: Stmt<B, C>;
}

/**
 * The structured statement tree, with C semantics: `break` leaves the
 * innermost loop or switch, `continue` restarts the innermost loop (for
 * `doWhile` it evaluates the condition), `goto` jumps to the `label` with the
 * same id (the id of the block that follows it).
 */
export type Stmt<B, C> =
  | { kind: "seq"; items: Array<Stmt<B, C>> }
  /** The body of block `id`. Blocks whose body the caller calls empty are left out. */
  | { kind: "block"; id: number; body: B }
  | { kind: "if"; cond: Cond<C>; then: Stmt<B, C>; else?: Stmt<B, C> }
  | { kind: "while"; cond: Cond<C>; body: Stmt<B, C> }
  | { kind: "doWhile"; body: Stmt<B, C>; cond: Cond<C> }
  /**
   * `for (; cond; step)`: `step` (one block, see
   * {@linkcode StructureOptions.isStep}) runs after the body and on
   * `continue`, then `cond` is tested again.
   */
  | { kind: "for"; cond: Cond<C>; body: Stmt<B, C>; step: Stmt<B, C> }
  /** `for (;;)` — left by `break`, `return`, `stop` or `goto` only. */
  | { kind: "loop"; body: Stmt<B, C> }
  | { kind: "break" }
  | { kind: "continue" }
  | { kind: "switch"; value: C; block: number; cases: Array<SwitchCase<B, C>> }
  | { kind: "goto"; label: number }
  | { kind: "label"; id: number }
  /** The function returns; the value is whatever block `block` computed. */
  | { kind: "return"; block: number }
  /** Control ends here without returning (block `block` ended in `stop`). */
  | { kind: "stop"; block: number };

/** Options of {@linkcode structure}. */
export interface StructureOptions<B> {
  /**
   * Work limit in abstract steps (roughly one per node and edge visited per
   * phase). Past it the structurer gives the plain goto form, which is
   * linear. Default: 64 × (blocks + edges) + 100,000, plenty for any
   * reducible graph.
   */
  budget?: number;
  /**
   * Whether a block body does nothing. Only an empty block's condition may be
   * folded into its predecessor's (`a && b`), and empty blocks are left out
   * of the tree. Default: `null`, `undefined`, `""` and `[]` are empty.
   */
  isEmpty?: (body: B) => boolean;
  /**
   * Whether a block that ends the function (`return` or `stop`) may be
   * copied where a `goto` to it would otherwise stand, as people write an
   * early `return` instead of jumping to a shared one (SAILR's and
   * Hex-Rays' return duplication). The copy is the same block: its id
   * appears more than once in the tree. Default: when `isEmpty` says so.
   */
  duplicate?: (body: B) => boolean;
  /**
   * Whether a block body is one statement C can write as a `for` loop's
   * step (`i = i + 1`). A `while` loop whose body ends in such a block,
   * reached by gotos from inside the body, becomes `for (; c; step)` with
   * those gotos as `continue`. Default: never.
   */
  isStep?: (body: B) => boolean;
  /**
   * Deepest statement nesting the structurer builds before it gives the
   * goto form, so a consumer recursing over the tree stays within its stack.
   * Default 400.
   */
  maxDepth?: number;
}

/** The result of {@linkcode structure}. */
export interface Structured<B, C> {
  body: Stmt<B, C>;
  /** Number of `goto` statements in `body` (SAILR's metric). */
  gotos: number;
  /** Why some part fell back to gotos (budget, depth, unknown targets); empty when none. */
  warnings: string[];
  /** Steps spent out of the budget. */
  steps: number;
}
