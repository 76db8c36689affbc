/**
 * The decompiler over an open database: decodes a function, decompiles it under the budget,
 * caches the result per function (the IR and tree, not the text — names and local annotations
 * are applied when printing), and prints it with the database's names.
 */

import { RemcpError } from "../../../src/errors.ts";
import { hex } from "../../../src/protocol/paging.ts";
import type { FunctionInfo } from "../analysis/types.ts";
import type { Decoder, Insn } from "../arch/types.ts";
import { analysisOf, type EmbeddedDb, fnName } from "../db.ts";
import { decompile, type Decompiled, type DecompileInput, returnsPair } from "./decompile.ts";
import type { EmitNames } from "./emit.ts";
import { type LocalAnnotation, render, type Rendered, type RenderLimits } from "./render.ts";
import type { Built } from "./build.ts";
import { budgetClock } from "./clock.ts";
import { DecompilerCache, type Summary } from "./cache.ts";

export { DecompilerCache };
import { lastResort } from "./lastresort.ts";
import { parsePrototype, type Prototype } from "./abi/prototype.ts";
import { builtinPrototypes, prototypeKey } from "./abi/prototypes.ts";

/** Limits of one decompilation. */
export interface DecompileLimits {
  /** Milliseconds for the full pipeline. */
  budgetMs: number;
  /** Milliseconds more for the simplified tier, which goes on from where the full one was. */
  simplifiedBudgetMs: number;
  /** Instructions the full pipeline takes; a larger function gets the simplified tier. */
  maxInstructions: number;
  /** Instructions the simplified tier takes; a larger function is Unsupported. */
  maxSimplifiedInstructions: number;
  /**
   * A tier to run whatever the function (the differential benchmark measures each one; see
   * {@link TIER_ENV}): the simplified one as it is with no time left for its optional passes
   * (partial propagation, no merged copies, gotos), or the last resort; undefined: the full
   * pipeline, then the simplified tier, then the last resort, as budget and size decide.
   */
  tier?: ForcedTier;
}

/** The tiers that can be forced. */
export type ForcedTier = "simplified" | "last-resort";

/** The debugging variable that forces a tier in a worker (README: configuration). */
export const TIER_ENV = "REMCP_DEBUG_DECOMPILER_TIER";

/** The limits a worker runs with: the defaults, and a tier forced by {@link TIER_ENV}. */
export function limitsFromEnv(env: (name: string) => string | undefined): DecompileLimits {
  const tier = env(TIER_ENV);
  if (tier === undefined || tier === "") return DEFAULT_LIMITS;
  if (tier !== "simplified" && tier !== "last-resort") {
    throw new RemcpError(
      "InvalidArgument",
      `${TIER_ENV} is "${tier}": set it to simplified or last-resort, or leave it unset`,
      { [TIER_ENV]: tier },
    );
  }
  return { ...DEFAULT_LIMITS, tier };
}

/** Defaults: generous for real functions, small enough that the worker stays responsive. */
export const DEFAULT_LIMITS: DecompileLimits = {
  budgetMs: 10_000,
  simplifiedBudgetMs: 10_000,
  maxInstructions: 20_000,
  maxSimplifiedInstructions: 50_000,
};

/** The names and data the printer shows, from the database. */
export function emitNames(d: EmbeddedDb): EmitNames {
  const a = analysisOf(d);
  return {
    functionAt: (addr) => {
      const fn = a.functionStartingAt(addr);
      if (fn) return fnName(d, fn);
      const slot = a.namesAt(addr).find((n) => n.kind === "import_slot" || n.kind === "import");
      return slot ? d.names.userName(addr) ?? slot.name : undefined;
    },
    dataAt: (addr) => {
      const user = d.names.userName(addr);
      if (user) return cIdentifier(user);
      const n = a.namesAt(addr).find((x) => x.kind === "object" || x.kind === "symbol");
      return n ? cIdentifier(n.name) : undefined;
    },
    // A string in writable memory is a buffer that may change: shown by address, not as text.
    stringAt: (addr) =>
      d.image.segmentAt(addr)?.perms.includes("w") ? undefined : a.stringAt(addr)?.text,
    commentAt: (addr) => d.store.get("comment", addr),
  };
}

function cIdentifier(name: string): string {
  return name.replace(/[^A-Za-z0-9_]/g, "_");
}

/**
 * Decompiles `fn` (or takes it from the cache). `clock` measures the budget (budget
 * milliseconds, see clock.ts); a caller that goes on to print passes its own, so that printing
 * counts against the same budget.
 */
export async function decompiled(
  d: EmbeddedDb,
  fn: FunctionInfo,
  cache: DecompilerCache,
  limits: DecompileLimits = DEFAULT_LIMITS,
  clock: () => number = budgetClock(),
): Promise<Decompiled> {
  const hit = cache.get(fn.start);
  if (hit) return hit;
  const image = d.image;
  if (image.arch !== "x86" && image.arch !== "x86_64" && image.arch !== "aarch64") {
    throw new RemcpError(
      "Unsupported",
      `The embedded decompiler lifts x86, x86-64 and AArch64 only, not ${image.arch} yet: read ` +
        `disassemble_function, or open the file with backend rizin/ghidra for decompile_function`,
      { arch: image.arch },
    );
  }
  const a = analysisOf(d);
  const size = fn.blocks.reduce((n, b) => n + (b.end - b.start), 0);
  if (size > limits.maxSimplifiedInstructions * 4) {
    throw tooBig(fn, `${size} bytes`, limits);
  }
  const decoder: Decoder = await d.code.decoder(fn.start);
  const insns = a.instructionsOf(fn, decoder, { detail: true, text: true });
  if (insns.length > limits.maxSimplifiedInstructions) {
    throw tooBig(fn, `${insns.length} instructions`, limits);
  }
  // One run: the full pipeline for its budget, then the simplified tier for the rest, then
  // (past both, or when a pass fails) the last resort from the lifted function.
  const budgetMs = limits.budgetMs + limits.simplifiedBudgetMs;
  let built: Built | undefined;
  const common = { budgetMs, now: clock, onLifted: (b: Built) => built = b };
  let input: DecompileInput | undefined;
  const keep = (i: DecompileInput) => input = i;
  let result: Decompiled;
  try {
    if (limits.tier === "last-resort") {
      // Lifting, then out of budget at once: the same way in as a real run's.
      result = run(d, fn, insns, decoder, cache, { ...common, budgetMs: -1, keep });
    } else if (limits.tier === "simplified" || insns.length > limits.maxInstructions) {
      result = run(d, fn, insns, decoder, cache, {
        ...common,
        keep,
        ...(limits.tier === "simplified" ? { bare: true } : {}),
        simplified: limits.tier === "simplified"
          ? `the simplified tier was asked for (${TIER_ENV})`
          : `${insns.length} instructions are over the full analysis's cap of ` +
            `${limits.maxInstructions}`,
      });
    } else {
      result = run(d, fn, insns, decoder, cache, {
        ...common,
        keep,
        fullShare: limits.budgetMs / budgetMs,
        withCallees: true,
      });
    }
  } catch (err) {
    if (built === undefined || input === undefined) throw err;
    const timeout = err instanceof RemcpError && err.code === "Timeout";
    if (!timeout && !(err instanceof Error)) throw err;
    const why = limits.tier === "last-resort"
      ? `the last-resort tier was asked for (${TIER_ENV})`
      : timeout
      ? `the full analysis and the simplified tier ran past their ${budgetMs / 1000} s budget ` +
        `(stopped after ${String(err.detail.stage ?? "lifting")})`
      : `the analysis failed (${err.message.replaceAll("*/", "* /")})`;
    result = lastResort(input, built, why);
  }
  cache.set(fn.start, result);
  return result;
}

/** How one function is decompiled (see {@link DecompileInput}). */
interface RunOptions {
  budgetMs: number;
  /** The budget clock (a callee's summary counts from its start on its caller's). */
  now?: () => number;
  onLifted?: (built: Built) => void;
  /** Receives the pipeline's input (the last resort prints from it). */
  keep?: (input: DecompileInput) => void;
  fullShare?: number;
  simplified?: string;
  /** The simplified tier without its optional passes (see {@link DecompileInput.bare}). */
  bare?: boolean;
  /** Decompile callees without a prototype for their parameter counts (else: cached ones only). */
  withCallees?: boolean;
}

function run(
  d: EmbeddedDb,
  fn: FunctionInfo,
  insns: Insn[],
  decoder: Decoder,
  cache: DecompilerCache,
  options: RunOptions,
): Decompiled {
  const { budgetMs, withCallees } = options;
  const now = options.now ?? budgetClock();
  // Past the full pipeline's share the simplified tier runs: no callee is decompiled then.
  const calleesUntil = now() + budgetMs * (options.fullShare ?? 1);
  const a = analysisOf(d);
  const image = d.image;
  const noreturn = (addr: number) =>
    a.functionStartingAt(addr)?.flags.includes("noreturn") ?? false;
  const names = emitNames(d);
  // Callees without a prototype: what their own code says (decompiled once, without their
  // callees, and remembered).
  const summary = (addr: number): Summary | undefined => {
    const cached = cache.summaries.get(addr);
    if (cached || now() > calleesUntil) return cached;
    const callee = a.functionStartingAt(addr);
    if (!callee || callee.flags.includes("import") || callee.start === fn.start) return undefined;
    const size = callee.blocks.reduce((n, b) => n + (b.end - b.start), 0);
    if (size > 4000) return undefined;
    try {
      const body = a.instructionsOf(callee, decoder, { detail: true, text: true });
      // The callee's clock counts from now on the caller's: a clock of its own would read the
      // process's CPU time once more per callee.
      const from = now();
      const dec = run(d, callee, body, decoder, cache, {
        budgetMs: Math.min(budgetMs, 500),
        now: () => now() - from,
      });
      const floats = dec.params.filter((p) => p.k === "reg" && /^(xmm|v)\d+$/.test(p.name)).length;
      const indirectResult = dec.params.some((p) =>
        p.k === "reg" && p.name === dec.cc.indirectResult
      );
      const s = {
        params: dec.params.length - floats - (indirectResult ? 1 : 0),
        indirectResult,
        floatParams: floats,
        returns: dec.returns,
        floatReturn: dec.floatReturn !== undefined,
        wideReturn: dec.cc.retHigh !== undefined && returnsPair(dec.ir),
      };
      cache.summaries.set(addr, s);
      return s;
    } catch {
      return undefined;
    }
  };
  const input: DecompileInput = {
    fn,
    insns,
    bits: image.arch === "x86" ? 32 : 64,
    ...(image.arch === "aarch64" ? { arch: "aarch64" as const } : {}),
    format: image.format,
    isNoReturn: noreturn,
    isString: (addr) => a.stringAt(addr) !== undefined,
    stringAt: (addr) => a.stringAt(addr)?.text,
    prototypeAt: (addr) => prototypeAt(d, addr, names),
    bytesAt: (addr, length) => image.read(addr, length),
    ...(image.arch === "x86" ? { pcThunk: (addr: number) => pcThunk(d, addr) } : {}),
    ...(withCallees
      ? { summaryAt: summary }
      // The simplified tier decompiles no callee: it reads the summaries already made.
      : options.simplified !== undefined
      ? { summaryAt: (addr: number) => cache.summaries.get(addr) }
      // A callee decompiled for its summary needs its signature only.
      : { signatureOnly: true }),
    budgetMs,
    ...(options.fullShare !== undefined ? { fullShare: options.fullShare } : {}),
    ...(options.simplified !== undefined ? { simplified: options.simplified } : {}),
    ...(options.bare ? { bare: true } : {}),
    now,
    ...(options.onLifted ? { onLifted: options.onLifted } : {}),
  };
  options.keep?.(input);
  return decompile(input);
}

// `mov reg, [esp]; ret`: the ModRM byte names the register.
const THUNK_REGS: Record<number, string> = {
  0x04: "eax",
  0x0c: "ecx",
  0x14: "edx",
  0x1c: "ebx",
  0x2c: "ebp",
  0x34: "esi",
  0x3c: "edi",
};

/** The register a 32-bit PIC thunk at `address` loads with its return address, if it is one. */
function pcThunk(d: EmbeddedDb, address: number): string | undefined {
  const b = d.image.read(address, 4);
  if (!b || b[0] !== 0x8b || b[2] !== 0x24 || b[3] !== 0xc3) return undefined;
  return THUNK_REGS[b[1]!];
}

/** The user's prototype at `address`, else the built-in one of the name there. */
export function prototypeAt(
  d: EmbeddedDb,
  address: number,
  names: EmitNames,
): Prototype | undefined {
  const user = d.store.get("prototype", address);
  if (user) {
    try {
      return parsePrototype(user);
    } catch {
      // A prototype the parser cannot read is ignored here; set_function_prototype checks them.
    }
  }
  const name = names.functionAt(address);
  return name === undefined ? undefined : builtinPrototype(d, prototypeKey(name));
}

function builtinPrototype(d: EmbeddedDb, key: string): Prototype | undefined {
  d.prototypes ??= builtinPrototypes();
  return d.prototypes.get(key);
}

function tooBig(fn: FunctionInfo, what: string, limits: DecompileLimits): RemcpError {
  return new RemcpError(
    "Unsupported",
    `${fn.name} at ${hex(fn.start)} is too large to decompile (${what}; the limit is ` +
      `${limits.maxSimplifiedInstructions} instructions): read it with disassemble_function in ` +
      `pages`,
    { address: hex(fn.start), limit: limits.maxSimplifiedInstructions },
  );
}

/** Prints a decompiled function with the database's current names and local annotations. */
export function renderFor(
  d: EmbeddedDb,
  fn: FunctionInfo,
  dec: Decompiled,
  locals: ReadonlyMap<string, LocalAnnotation>,
  limits: RenderLimits = {},
): Rendered {
  return render(dec, cIdentifier(fnName(d, fn)), emitNames(d), locals, limits);
}

/**
 * How long printing may go on by `clock` (one that measured the decompilation): to the end of
 * the function's whole budget, and at least a tenth of it from now, so that a decompilation that
 * used all of its time still prints its first lines.
 */
export function printUntil(clock: () => number, limits: DecompileLimits = DEFAULT_LIMITS): number {
  const budget = limits.budgetMs + limits.simplifiedBudgetMs;
  return Math.max(budget, clock() + budget / 10);
}
