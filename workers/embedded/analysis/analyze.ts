/**
 * The analysis driver: function discovery (symbols → exception tables → entry points →
 * recursive descent → pointers → gaps), the non-returning fixpoint, then CFG, cross-references,
 * strings and names. Yields to the event loop regularly so the worker stays responsive.
 */

import type { Decoder } from "../arch/types.ts";
import type { BinaryImage } from "../formats/image.ts";
import { Analysis } from "./analysis.ts";
import { buildAnalysisData, type FunctionSeed } from "./_build.ts";
import { CodeCache, FLOW_CODE } from "./_code_cache.ts";
import { collectGarbage } from "./_gc.ts";
import { explore, type ExploreContext, type SwitchTable, type Trace } from "./_explore.ts";
import { claimCases } from "./_claim_cases.ts";
import { armPcPointer, thumbLiteralBytes } from "./_arm_pointers.ts";
import {
  A32_WORDS,
  a32Odds,
  a32PaddingAt,
  NOT_A32,
  plausibleA32,
  switchesMode,
  thumbPrologueAt,
} from "./_arm_modes.ts";
import { AddrMap } from "./_addr_map.ts";
import { longBranchResolver, switchResolver } from "./_jump_tables.ts";
import { fixedRegisters, gotSlotResolver } from "./_jump_tables_risc.ts";
import { isNoReturnName } from "./_noreturn.ts";
import { functionPaddingEnd, paddingAt, prologueAt } from "./_padding.ts";
import { MappedRun } from "./_mapped_run.ts";
import { Pacer, type ProgressCallback } from "./_pacer.ts";
import { badOnlyAfterCalls, startMain, tocPairPointer } from "./_ppc64.ts";
import type { AnalysisData, FunctionSource } from "./types.ts";

/** Options of {@link analyze}. */
export interface AnalyzeOptions {
  onProgress?: ProgressCallback;
  signal?: AbortSignal;
  /** Longest stretch of work between event-loop yields, in ms; default 15. */
  yieldEvery?: number;
  /** ARM: the decoder for Thumb code (the main decoder then decodes A32). */
  thumbDecoder?: Decoder;
  /** Shortest string the scan reports; default 4. */
  minStringLength?: number;
  /** Scan code sections for strings too; default false. */
  stringsInCode?: boolean;
  /** Skip the gap scan (prologues and code after padding); default false. */
  noGapScan?: boolean;
  /**
   * `performance.now()` time after which the analysis stops with a `TimeoutError`, checked in
   * every phase (also inside long synchronous stretches, where an abort signal's timer cannot
   * fire).
   */
  deadline?: number;
}

const TRUST: Record<FunctionSource, number> = {
  symbol: 0,
  export: 1,
  import: 1,
  exception_table: 2,
  entry: 3,
  call: 4,
  tail_jump: 5,
  code_pointer: 6,
  data_pointer: 7,
  prologue: 8,
  gap: 9,
};

/** Bytes per page of a coverage map (a power of two). */
const COVERAGE_PAGE = 1 << 16;

/**
 * Bytes of code covered by explored instructions, one map per executable range. A map's pages
 * are made when something is marked in them: the gap scan asks about every byte, and reading a
 * page commits it, so one flat map per range made a raw blob's empty flash cost a byte of memory
 * per byte of blob, round after round.
 */
class Coverage {
  readonly #ranges: readonly { start: number; end: number }[];
  readonly #maps: (Uint8Array | undefined)[][];
  constructor(ranges: readonly { start: number; end: number }[]) {
    this.#ranges = ranges;
    this.#maps = ranges.map(() => []);
  }
  #find(addr: number): number {
    const r = this.#ranges;
    for (let i = 0; i < r.length; i++) if (addr >= r[i]!.start && addr < r[i]!.end) return i;
    return -1;
  }
  /** Marks offsets [from, to) of range `i` (clamped to the range). */
  #fill(i: number, from: number, to: number): void {
    const r = this.#ranges[i]!;
    const end = Math.min(to, r.end - r.start);
    const pages = this.#maps[i]!;
    for (let o = from; o < end;) {
      const p = Math.floor(o / COVERAGE_PAGE);
      const page = pages[p] ??= new Uint8Array(COVERAGE_PAGE);
      const stop = Math.min(end, (p + 1) * COVERAGE_PAGE);
      page.fill(1, o - p * COVERAGE_PAGE, stop - p * COVERAGE_PAGE);
      o = stop;
    }
  }
  add(addr: number, size: number): void {
    const i = this.#find(addr);
    if (i < 0) return;
    const o = addr - this.#ranges[i]!.start;
    this.#fill(i, o, o + size);
  }
  /** Marks the one byte at each of `addrs` (sorted): instruction starts. */
  mark(addrs: ArrayLike<number>): void {
    let i = -1;
    let r = { start: 0, end: 0 };
    for (let k = 0; k < addrs.length; k++) {
      const a = addrs[k]!;
      if (a < r.start || a >= r.end) {
        i = this.#find(a);
        r = i < 0 ? { start: 0, end: 0 } : this.#ranges[i]!;
        if (i < 0) continue;
      }
      this.#fill(i, a - r.start, a - r.start + 1);
    }
  }
  has(addr: number): boolean {
    const i = this.#find(addr);
    if (i < 0) return false;
    const o = addr - this.#ranges[i]!.start;
    return this.#maps[i]![Math.floor(o / COVERAGE_PAGE)]?.[o % COVERAGE_PAGE] === 1;
  }
  /** A copy that marks apart from this one. */
  clone(): Coverage {
    const c = new Coverage(this.#ranges);
    this.#maps.forEach((pages, i) => {
      pages.forEach((page, p) => {
        if (page !== undefined) c.#maps[i]![p] = page.slice();
      });
    });
    return c;
  }
}

/** Ranges known from symbols and unwind tables, for "is this inside a known function". */
class RangeIndex {
  #starts: number[] = [];
  #ends: number[] = [];
  constructor(ranges: { start: number; end: number }[]) {
    ranges.sort((a, b) => a.start - b.start);
    for (const r of ranges) {
      this.#starts.push(r.start);
      this.#ends.push(r.end);
    }
  }
  contains(addr: number): boolean {
    let lo = 0;
    let hi = this.#starts.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.#starts[mid]! <= addr) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    // Ranges may nest or overlap a little; look back a few entries.
    for (let k = found; k >= 0 && k > found - 4; k--) if (addr < this.#ends[k]!) return true;
    return false;
  }
}

/**
 * Analyse `image` with `decoder` (for ARM, pass the A32 decoder and `options.thumbDecoder`).
 * Resolves to an {@link Analysis}; rejects with the signal's reason when aborted, and with a
 * `TimeoutError` once `options.deadline` has passed (checked inside every phase).
 */
export async function analyze(
  image: BinaryImage,
  decoder: Decoder,
  options: AnalyzeOptions = {},
): Promise<Analysis> {
  const t0 = performance.now();
  const data = await discover(image, decoder, options);
  // The discovery's state is garbage now (see collectGarbage).
  if (data.functions.length >= BIG_FUNCTIONS) collectGarbage();
  data.seconds = (performance.now() - t0) / 1000;
  return new Analysis(data, image);
}

/**
 * Function count past which phase boundaries collect garbage: a few full collections cost
 * little beside a big analysis, and keep its peak memory near what is alive.
 */
const BIG_FUNCTIONS = 2000;

/** The phases, in a scope of their own so that their state is garbage once they are done. */
async function discover(
  image: BinaryImage,
  decoder: Decoder,
  options: AnalyzeOptions,
): Promise<AnalysisData> {
  const d = new Discovery(image, decoder, options);
  d.seedFromTables();
  await d.pacer.phase(0.05, "Exploring functions");
  await d.descend();
  await d.pacer.phase(0.5, "Following code pointers");
  await d.followPointers();
  await d.claimCases();
  if (options.noGapScan !== true) {
    await d.pacer.phase(0.6, "Scanning gaps");
    await d.scanGaps();
    await d.followCodePointers();
    await d.claimCases();
  }
  await d.pacer.phase(0.7, "Finding functions that do not return");
  await d.findNonReturning();
  await d.mergeColdParts();
  // Every function was explored again: the first traces are garbage.
  if (d.seeds.size >= BIG_FUNCTIONS) collectGarbage();
  await d.pacer.phase(0.85, "Building the CFG and cross-references");
  const data = await d.build();
  await d.pacer.phase(1, "Done");
  return data;
}

/**
 * The state function discovery builds up, and its phases in order: seeds from the file's
 * tables, recursive descent, code and data pointers, gaps, the non-returning fixpoint, split-off
 * parts, then the CFG and cross-references.
 */
class Discovery {
  readonly image: BinaryImage;
  readonly options: AnalyzeOptions;
  readonly pacer: Pacer;
  readonly cache: CodeCache;
  readonly seeds = new Map<number, FunctionSeed>();
  readonly traces = new Map<number, Trace>();
  /** Every instruction some function reached: a jump into one is not a new function. */
  readonly explored: Coverage;
  readonly noreturn = new Set<number>();
  readonly slotTarget = new Map<number, number>();
  readonly importAt = new Map<number, string>();
  readonly entry: number | undefined;
  readonly ctx: ExploreContext;
  /** Functions waiting for {@link descend}. */
  readonly queue: FunctionSeed[] = [];
  /** Every indirect jump resolved so far, by address (undefined where it was not). */
  readonly switches = new Map<number, SwitchTable | undefined>();
  readonly codePointers: number[] = [];
  /** Extents from symbols and unwind entries, for "is this inside a known function". */
  ranges = new RangeIndex([]);
  cov: Coverage | undefined;
  /**
   * The coverage of the traces but those in {@link #fresh}, kept up to date as traces are added
   * (copying it beats re-marking every instruction of every trace at each gap round); undefined
   * once a trace was replaced.
   */
  #covered: Coverage | undefined;
  #fresh: Trace[] = [];
  pointers: { from: number; to: number }[] = [];
  /** Sorted starts for `nextStartAfter`, built lazily and kept current by {@link addSeed}. */
  #sortedStarts: number[] | undefined;
  readonly #cold = new Map<string, number[]>();
  /** The keys of {@link seeds} (value 1; 0 once dropped), for the hot `isFunctionStart`. */
  readonly #starts = new AddrMap();
  readonly #knownRanges: { start: number; end: number }[] = [];
  /** How many of {@link codePointers} were tried as function starts. */
  #codePointersTried = 0;
  /** Starts added by {@link addSeed}, in order: what a trace explored earlier did not know. */
  readonly #seedLog: number[] = [];
  /** Non-returning function → its place in the order the fixpoint found them. */
  readonly #noreturnSeq = new Map<number, number>();
  /** Per explored start: lengths of the seed log and of `#noreturnSeq` when it was explored. */
  readonly #stamps = new Map<number, { seeds: number; noreturn: number }>();

  constructor(image: BinaryImage, decoder: Decoder, options: AnalyzeOptions) {
    this.image = image;
    this.options = options;
    this.pacer = new Pacer(
      options.yieldEvery ?? 15,
      options.signal,
      options.onProgress,
      options.deadline,
    );
    this.cache = new CodeCache(image, decoder, options.thumbDecoder);
    this.explored = new Coverage(this.cache.ranges);
    this.entry = image.entry !== undefined ? this.norm(image.entry) : undefined;
    if (this.#learnsModes) {
      // The entry, DT_INIT/DT_FINI and the init/fini arrays give their functions' modes.
      for (const ep of image.entryPoints) {
        if (ep.thumb !== undefined) this.cache.learnMode(this.norm(ep.address), ep.thumb);
      }
      // A learnt mode holds up to the next mark: a soft mark at each code section's start keeps
      // an A32 stub's mode from running on into `.text`. Linkers write PLT stubs in A32.
      for (const r of this.cache.ranges) {
        const stubs = inStubSection(image, r.start) &&
          plausibleA32(r.start, image.readUpTo(r.start, 4 * A32_WORDS));
        this.cache.learnMode(r.start, stubs ? false : this.cache.modes.fallback(r.start), true);
      }
    }
    // Imports: stubs are functions named after the import; slots lead to them.
    for (const imp of image.imports) {
      this.importAt.set(imp.address, imp.name);
      this.slotTarget.set(imp.slot ?? imp.address, imp.address);
    }
    const pacer = this.pacer;
    const toc = fixedRegisters(image).r2;
    this.ctx = {
      cache: this.cache,
      isFunctionStart: (a) => this.#starts.get(a) === 1,
      isNoReturn: (a) => this.noreturn.has(a),
      slotTarget: (slot) => this.slotTarget.get(slot),
      resolveSwitch: memoSwitches(switchResolver(image, this.cache), this.switches),
      longBranch: longBranchResolver(image, this.cache),
      zeroRunAt: image.arch === "x86" || image.arch === "x86_64" || image.arch === "arm"
        ? (a) => zeroRunAt(this.cache, a)
        : undefined,
      gotTarget: gotTargets(image, this.cache, this.slotTarget),
      nextStartAfter: (a) => this.#nextStartAfter(a),
      takesAddress: (address, size) => takesAddress(image, address, size),
      literalBytes: image.arch === "arm"
        ? (address, size) => thumbLiteralBytes(image, this.cache, address, size)
        : undefined,
      immediatePointer: image.arch === "x86" || image.arch === "x86_64"
        ? (address, size) => x86ImmediatePointer(image, this.cache, address, size)
        : image.arch === "riscv64" || image.arch === "riscv32"
        ? (address, size) => riscvPairPointer(image, address, size)
        : image.arch === "ppc64" && toc !== undefined
        ? (address) => tocPairPointer(image, toc, address)
        : image.arch === "arm"
        ? (address, size) => armPcPointer(image, this.cache, address, size)
        : undefined,
      delaySlots: image.arch === "mips" || image.arch === "mips64",
      localEntryOffset: image.arch === "ppc64" ? 8 : 0,
      isGlobalEntry: image.arch === "ppc64" ? (a) => isTocSetup(image, a) : undefined,
      checkBudget: () => pacer.check(),
      sectionEnd: (a) => this.cache.rangeEnd(a) ?? Infinity,
      paddingEnd: (a) =>
        a + functionPaddingEnd(image.arch, image.readUpTo(a, 64), image.endian === "little"),
    };
  }

  norm(a: number): number {
    return this.image.arch === "arm" ? a & ~1 : a;
  }

  /** ARM: the mode a code pointer's low bit gives (set: Thumb); undefined elsewhere. */
  #modeOf(pointer: number): boolean | undefined {
    return this.#learnsModes ? (pointer & 1) === 1 : undefined;
  }

  /** Adds a function start (or improves what is known of one); true when it is new. */
  addSeed(start: number, source: FunctionSource, end?: number, name?: string): boolean {
    const s = this.seeds.get(start);
    if (s === undefined) {
      const seed: FunctionSeed = { start, source, extra: [] };
      if (end !== undefined && end > start) seed.ranges = [{ start, end }];
      if (name !== undefined) seed.name = name;
      this.seeds.set(start, seed);
      this.#starts.set(start, 1);
      this.#seedLog.push(start);
      const st = this.#sortedStarts;
      // Keep the sorted list current: rebuilding it per new seed is quadratic.
      if (st !== undefined) st.splice(lowerBound(st, start), 0, start);
      return true;
    }
    if (TRUST[source] < TRUST[s.source]) s.source = source;
    if (s.ranges === undefined && end !== undefined && end > start) s.ranges = [{ start, end }];
    if (s.name === undefined && name !== undefined) s.name = name;
    return false;
  }

  /** PowerPC64: a branch to a local entry (`f + 8`) enters the function `f`. */
  #globalEntry(to: number): number {
    const g = to - this.ctx.localEntryOffset;
    return g !== to && !this.seeds.has(to) && this.ctx.isGlobalEntry?.(g) === true ? g : to;
  }

  #nextStartAfter(a: number): number {
    this.#sortedStarts ??= [...this.seeds.keys()].sort((x, y) => x - y);
    const st = this.#sortedStarts;
    return st[lowerBound(st, a + 1)] ?? Infinity;
  }

  /** Phase 1: seeds from symbols, exports, imports, unwind tables and entry points. */
  seedFromTables(): void {
    const { image, cache } = this;
    for (const sym of image.symbols) {
      if (sym.kind !== "function" || sym.address === 0) continue;
      const a = this.norm(sym.address);
      if (!cache.isCode(a)) continue;
      if (sym.size > 0) this.#knownRanges.push({ start: a, end: a + sym.size });
      const m = /^(.+)\.cold(?:\.\d+)?$/.exec(sym.name);
      if (m !== null) {
        const list = this.#cold.get(m[1]!) ?? [];
        list.push(a);
        this.#cold.set(m[1]!, list);
        continue;
      }
      this.addSeed(a, "symbol", sym.size > 0 ? a + sym.size : undefined, sym.name);
    }
    for (const e of image.exports) {
      const a = this.norm(e.address);
      if (cache.isCode(a) && e.forwarder === undefined) {
        this.addSeed(a, "export", undefined, e.name);
      }
    }
    for (const imp of image.imports) this.addSeed(imp.address, "import", undefined, imp.name);
    const toc = fixedRegisters(image).r2;
    if (toc !== undefined) {
      const bySlot = new Map(image.imports.map((i) => [i.slot ?? i.address, i]));
      for (const [stub, slot] of ppcCallStubs(image, toc)) {
        const imp = bySlot.get(slot);
        if (imp === undefined) continue;
        this.addSeed(stub, "import", undefined, imp.name);
        this.importAt.set(stub, imp.name);
      }
    }
    const coldStarts = new Set([...this.#cold.values()].flat());
    const stubs = [...this.importAt.keys()].sort((x, y) => x - y);
    for (const h of image.functionHints) {
      const a = this.norm(h.start);
      if (!cache.isCode(a) || coldStarts.has(a)) continue;
      // One unwind entry covers a whole PLT: its stubs are the imports, not one big function.
      // PowerPC64 links its PLT (the glink resolver and lazy stubs) at the end of `.text`.
      if (inStubSection(image, a) || coversImport(stubs, a, h.end)) continue;
      this.addSeed(a, "exception_table", h.end);
      if (h.end !== undefined) this.#knownRanges.push({ start: a, end: h.end });
    }
    for (const ep of image.entryPoints) {
      const a = this.norm(ep.address);
      if (cache.isCode(a)) this.addSeed(a, "entry");
    }
    const main = toc !== undefined && this.entry !== undefined
      ? startMain(image, toc, this.entry)
      : undefined;
    if (main !== undefined && cache.isCode(main)) this.addSeed(main, "code_pointer");
    this.#attachColdParts();
    this.ranges = new RangeIndex(this.#knownRanges);
    for (const [addr, name] of this.importAt) if (isNoReturnName(name)) this.noreturn.add(addr);
    for (const s of this.seeds.values()) {
      if (s.name !== undefined && isNoReturnName(s.name)) this.noreturn.add(s.start);
    }
    this.queue.push(...[...this.seeds.values()].sort((a, b) => TRUST[a.source] - TRUST[b.source]));
  }

  /** `.cold` parts join their parents by name. */
  #attachColdParts(): void {
    const byName = new Map<string, FunctionSeed>();
    for (const s of this.seeds.values()) if (s.name !== undefined) byName.set(s.name, s);
    for (const [parent, parts] of this.#cold) {
      const p = byName.get(parent);
      if (p === undefined) continue;
      p.extra.push(...parts);
      if (p.ranges !== undefined) {
        for (const a of parts) {
          const r = this.#knownRanges.find((k) => k.start === a);
          p.ranges.push(r ?? { start: a, end: a + 1 });
        }
      }
    }
  }

  isImportOnly(s: FunctionSeed): boolean {
    return s.source === "import" && !this.cache.isCode(s.start);
  }

  run(s: FunctionSeed): Trace {
    const t = explore(this.ctx, s.start, s.ranges, s.extra);
    if (this.traces.has(s.start)) {
      this.#covered = undefined;
      this.#fresh = [];
    } else if (this.#covered !== undefined) this.#fresh.push(t);
    this.traces.set(s.start, t);
    this.#stamps.set(s.start, { seeds: this.#seedLog.length, noreturn: this.#noreturnSeq.size });
    this.explored.mark(t.insns.array);
    return t;
  }

  /** Phase 2 (and after every phase that finds functions): recursive descent over the queue. */
  async descend(): Promise<void> {
    const { queue, cache, seeds, pacer } = this;
    // Tail-jump targets wait until the queue drains: by then the function whose body they
    // may sit in has usually been explored, and a jump into a body is not a new function.
    const tails: number[] = [];
    for (let qi = 0; qi < queue.length; qi++) {
      const s = queue[qi]!;
      if (!this.isImportOnly(s)) {
        const t = this.run(s);
        for (const c of t.calls) {
          if (!cache.isCode(c.to)) continue;
          if (this.#learnsModes) this.#learnCallMode(c.from, c.to);
          if (!seeds.has(c.to) && this.addSeed(c.to, "call")) queue.push(seeds.get(c.to)!);
        }
        // A lazy-binding stub's jump goes to the resolver (PowerPC64 `__glink_PLTresolve` at the
        // end of `.text`): import machinery, not a function.
        if (s.source !== "import") {
          for (const e of t.edges) if (e.kind === "tail") tails.push(this.#globalEntry(e.to));
        }
        this.codePointers.push(...t.codePointers);
        if (pacer.due()) await pacer.tick(0.05 + 0.4 * (qi / queue.length), "Exploring functions");
      }
      if (qi === queue.length - 1) {
        for (const to of tails.splice(0)) {
          if (
            seeds.has(to) || !cache.isCode(to) || this.ranges.contains(to) ||
            this.explored.has(to)
          ) continue;
          if (this.addSeed(to, "tail_jump")) queue.push(seeds.get(to)!);
        }
      }
    }
    // New traces change what is covered.
    if (queue.length > 0) this.cov = undefined;
    queue.length = 0;
  }

  /**
   * Bytes of code covered by explored instructions, made again after each descent that found
   * functions (probes mark their code in it until then).
   */
  async coverage(): Promise<Coverage> {
    if (this.cov !== undefined) return this.cov;
    if (this.#covered === undefined) {
      this.#covered = new Coverage(this.cache.ranges);
      this.#fresh = [...this.traces.values()];
    }
    const c = this.#covered;
    const word = this.image.bits === 64 ? 8 : 4;
    for (const t of this.#fresh) {
      const cache = this.cache;
      for (const a of t.insns.array) c.add(a, cache.sizeOf(cache.indexAt(a)));
      // AArch64's memRefs in code are `adrp` pages and RISC-V's are `auipc` upper halves, not
      // data (covering them hid whole functions behind a gap).
      if (this.image.arch !== "aarch64" && !this.image.arch.startsWith("riscv")) {
        for (const d of t.dataInCode) c.add(d, word);
      }
      for (const d of t.inlineTables) c.add(d.start, d.size);
      if (this.pacer.due()) await this.pacer.tick(0.5, "Measuring coverage");
    }
    this.#fresh = [];
    this.cov = c.clone();
    return this.cov;
  }

  /**
   * Probes `a` as a function start: true (and queued) when its code is new, not inside a known
   * function and does not run into one; otherwise its code is marked as some function's
   * unreached part so later candidates skip it.
   */
  tryCandidate(a: number, source: FunctionSource, cov: Coverage, thumb?: boolean): boolean {
    const { seeds, cache, image } = this;
    if (seeds.has(a) || cov.has(a) || !cache.isCode(a)) return false;
    // Lazy-binding PLT entries continue after their jump; those tails are not functions.
    if (inStubSection(image, a)) return false;
    // ARM: probe in the mode the evidence gives (marked now, dropped again if the probe fails).
    const marked = this.#learnsModes && !cache.modes.markedAt(a) &&
      this.#learnMode(a, thumb, true);
    const ok = this.#probe(a, source, cov);
    if (!ok && marked) cache.forgetMode(a);
    return ok;
  }

  /**
   * Whether the analysis learns ARM modes: 32-bit ARM without marks that decide every mode
   * (a stripped ELF).
   */
  get #learnsModes(): boolean {
    return this.options.thumbDecoder !== undefined && !this.cache.modes.fixed;
  }

  /**
   * Marks `a` as a function in `thumb` mode when that is plausible there: a switch to A32 needs
   * code that reads as A32 ({@link plausibleA32}). For a `candidate` (a pointer or a gap) without
   * evidence (`thumb` undefined) the bytes may switch it; a call's target (not a candidate) may
   * not turn code that reads as A32 into Thumb. True when a mark was made; code explored before
   * in the range whose mode changed is explored again.
   */
  #learnMode(a: number, thumb: boolean | undefined, candidate: boolean): boolean {
    const cache = this.cache;
    const current = cache.isThumb(a);
    const b = this.image.readUpTo(a, 4 * A32_WORDS);
    let want = thumb ?? current;
    if (thumb === undefined && candidate) {
      // Thumb `blx` to a stub reads as an A32 branch: an unreachable call after a call that
      // does not return (glibc's `_start`) stays in its mode.
      if (current && plausibleA32(a, b) && !this.#callAfterCode(a)) want = false;
      else if (
        !current && (a32Odds(a, b) <= NOT_A32 || thumbPrologueAt(b) && !plausibleA32(a, b))
      ) {
        want = true;
      }
    }
    if (want === current && thumb === undefined) return false;
    if (!want && current && !plausibleA32(a, b)) return false;
    // A branch's mode is only as good as its decoding: Thumb for bytes that read as A32 needs a
    // pointer's low bit, not a jump from code that may itself be misread.
    if (want && !current && !candidate && plausibleA32(a, b)) return false;
    if (cache.modes.markedAt(a)) return false;
    if (cache.learnMode(a, want)) this.#reexploreFlipped(a);
    return true;
  }

  /** Whether `a`, right after explored code, decodes in its current mode as a direct call. */
  #callAfterCode(a: number): boolean {
    // `explored` marks instruction starts: the one before is 2 or 4 bytes back.
    if (!this.explored.has(a - 2) && !this.explored.has(a - 4)) return false;
    const n = this.cache.indexAt(a);
    return n >= 0 && this.cache.flowOf(n) === FLOW_CODE.call;
  }

  /** A direct call's target runs in its caller's mode, or the other one after `blx imm`. */
  #learnCallMode(from: number, to: number): void {
    const cache = this.cache;
    if (cache.modes.markedAt(to) || this.explored.has(to) && !this.seeds.has(to)) return;
    const n = cache.indexAt(from);
    if (n < 0 || cache.flowOf(n) !== FLOW_CODE.call) return;
    const thumb = cache.isThumb(from);
    this.#learnMode(to, thumb !== switchesMode(this.image.readUpTo(from, 4), thumb), false);
  }

  /** Functions explored in code whose mode just changed from `a` on are explored again. */
  #reexploreFlipped(a: number): void {
    const end = this.#nextMarkAfter(a);
    for (const s of this.seeds.values()) {
      if (s.start >= a && s.start < end && this.traces.has(s.start)) this.queue.push(s);
    }
    this.cov = undefined;
  }

  /** The next learnt mode mark after `a` (Infinity when none). */
  #nextMarkAfter(a: number): number {
    const next = this.cache.modes.marks().find((m) => m.addr > a);
    return next?.addr ?? Infinity;
  }

  #probe(a: number, source: FunctionSource, cov: Coverage): boolean {
    const { seeds, cache, image } = this;
    const probe = explore(this.ctx, a, undefined, []);
    const insns = probe.insns.array;
    const head = probe.insns.has(a) ? cache.at(a) : undefined;
    // `b .` after the call to __libc_start_main (MIPS `hlt`) is a trap, not a function.
    if (
      (probe.bad && !(image.arch === "ppc64" && badOnlyAfterCalls(image, probe, cache))) ||
      head === undefined || head.flow === "trap" ||
      (head.flow === "jump" && head.target === a)
    ) return false;
    // Strictly inside a function whose extent a symbol or an unwind entry gives: that
    // function's unreached code (switch cases behind an unread table), never a new function.
    let overlaps = this.ranges.contains(a);
    // `bl abort` right after `bl __libc_start_main` (glibc's _start): an unreachable call to a
    // function that does not return, straight after covered code, belongs to that code.
    const first = head;
    if (
      first.flow === "call" && first.target !== undefined && this.noreturn.has(first.target) &&
      cov.has(a - 1)
    ) overlaps = true;
    // ARM: what the probe decoded in its own literal pool is no code of it (it ran past a call
    // not yet known not to return), so no overlap either.
    const pool = image.arch === "arm" && probe.dataInCode.length > 0
      ? new Set(probe.dataInCode.flatMap((d) => [d, d + 2]))
      : undefined;
    for (const address of insns) {
      if (pool?.has(address) === true) continue;
      if (cov.has(address)) overlaps = true;
      // A jump into the middle of known code (not to a function's start, nor to its PowerPC64
      // local entry) marks this as that function's unreached part, e.g. a switch case behind a
      // table we could not read.
      const n = cache.indexAt(address);
      const flow = cache.flowOf(n);
      const t = cache.targetOf(n);
      if (
        (flow === FLOW_CODE.jump || flow === FLOW_CODE.cjump) && t === t && cov.has(t) &&
        !seeds.has(this.#globalEntry(this.norm(t)))
      ) overlaps = true;
    }
    for (const address of insns) cov.add(address, cache.sizeOf(cache.indexAt(address)));
    // Its literal pools and inline tables are not the next candidate (ARM without `$d`). Only
    // 32-bit ARM keeps literal pools in code; elsewhere a memRef in code is an AArch64 `adrp`
    // page, which would hide the function that happens to start on it.
    if (image.arch === "arm") { for (const d of probe.dataInCode) cov.add(d, 4); }
    for (const d of probe.inlineTables) cov.add(d.start, d.size);
    if (overlaps) return false;
    this.addSeed(a, source);
    this.queue.push(seeds.get(a)!);
    return true;
  }

  /** Phase 3: `lea` of code addresses and immediates, then relocated or aligned data words. */
  async followPointers(): Promise<void> {
    // Explore what code pointers led to first: their switch tables then cover the case blocks
    // that absolute tables (non-PIE) would otherwise offer as data pointers.
    await this.followCodePointers(1);
    const cov = await this.coverage();
    this.pointers = dataPointers(this.image, this.cache, () => this.pacer.check());
    for (const [i, p] of this.pointers.entries()) {
      this.tryCandidate(this.norm(p.to), "data_pointer", cov, this.#modeOf(p.to));
      if ((i & 255) === 0 && this.pacer.due()) await this.pacer.tick(0.55, "Following pointers");
    }
    await this.descend();
    await this.followCodePointers();
  }

  /**
   * Tries the code pointers not tried yet and explores what they find, for up to `rounds` rounds
   * or until no new ones turn up: a function found through a data pointer or a gap takes addresses too (bzip2's `main`,
   * found through `_start`'s literal, passes its signal handlers to `signal`).
   */
  async followCodePointers(rounds = 8): Promise<void> {
    for (
      let round = 0;
      round < rounds && this.#codePointersTried < this.codePointers.length;
      round++
    ) {
      const cov = await this.coverage();
      for (; this.#codePointersTried < this.codePointers.length; this.#codePointersTried++) {
        const i = this.#codePointersTried;
        const p = this.codePointers[i]!;
        this.tryCandidate(this.norm(p), "code_pointer", cov, this.#modeOf(p));
        if ((i & 255) === 0 && this.pacer.due()) await this.pacer.tick(0.5, "Following pointers");
      }
      await this.descend();
    }
  }

  /**
   * After pointers and after gaps: weakly found starts that a resolved switch shows to be its
   * cases are dropped (see {@link claimCases}); what the re-explored functions call is explored.
   */
  async claimCases(): Promise<void> {
    this.pacer.check();
    const rerun = claimCases({
      seeds: this.seeds,
      traces: this.traces,
      switches: this.switches,
      run: (s) => this.run(s),
      drop: (start) => {
        this.seeds.delete(start);
        this.traces.delete(start);
        this.#starts.set(start, 0);
        this.#sortedStarts = undefined;
      },
    });
    if (rerun.size === 0) return;
    this.cov = undefined;
    // Staleness counts added starts only: after dropping some, every trace is explored again.
    this.#stamps.clear();
    for (const g of rerun) {
      for (const c of this.traces.get(g)?.calls ?? []) {
        if (this.cache.isCode(c.to) && this.addSeed(c.to, "call")) {
          this.queue.push(this.seeds.get(c.to)!);
        }
      }
    }
    await this.descend();
  }

  /** Phase 4: code after padding and recognisable prologues in what nothing reached. */
  async scanGaps(): Promise<void> {
    const { image, cache, pacer } = this;
    for (let round = 0; round < 8; round++) {
      const cov = await this.coverage();
      let found = 0;
      for (const r of cache.ranges) {
        // A window at a time: a raw blob is read from the file, not held.
        const run = new MappedRun(image, r.start, r.end);
        for (let i = 0; run.has(i);) {
          const a = r.start + i;
          if (cov.has(a)) {
            i++;
            continue;
          }
          const pad = this.#paddingAt(a, run.bytes, i - run.base);
          if (pad > 0) {
            i += pad;
            continue;
          }
          // The first non-padding byte of a gap, or a prologue further in.
          let j = i + 1;
          const kind = prologueAt(image, run.bytes, i - run.base) ? "prologue" : "gap";
          if (this.tryCandidate(a, kind, cov)) found++;
          else {
            // Data or unreachable code: look further in for a recognisable prologue.
            while (run.has(j) && !cov.has(r.start + j)) {
              if (
                prologueAt(image, run.bytes, j - run.base) &&
                this.tryCandidate(r.start + j, "prologue", cov)
              ) {
                found++;
                break;
              }
              j++;
              if ((j & 4095) === 0 && pacer.due()) await pacer.tick(0.6, "Scanning gaps");
            }
          }
          while (run.has(j) && !cov.has(r.start + j)) j++;
          i = j;
          if (pacer.due()) await pacer.tick(0.6, "Scanning gaps");
        }
      }
      if (found === 0) break;
      await this.descend();
    }
  }

  /**
   * Bytes of padding at `b[i]` (address `a`). ARM: A32 code pads with words, and a zero
   * halfword at a word that reads as A32 is code (`cmp r0, #0`), not Thumb padding.
   */
  #paddingAt(a: number, b: Uint8Array, i: number): number {
    const image = this.image;
    if (this.#learnsModes) {
      if (!this.cache.isThumb(a)) {
        const pad = a32PaddingAt(b, i, a);
        if (pad > 0 || a % 4 === 0) return pad;
      } else if (a % 4 === 0 && plausibleA32(a, b.subarray(i, i + 4 * A32_WORDS))) return 0;
    }
    return paddingAt(image.arch, b, i, image.endian === "little");
  }

  /** Phase 5: functions that never return, to a fixpoint; callers are explored again. */
  async findNonReturning(): Promise<void> {
    const { seeds, traces, noreturn, pacer } = this;
    let dirty: FunctionSeed[] = [...seeds.values()];
    for (let round = 0; round < 8 && dirty.length > 0; round++) {
      const newly = new Set<number>();
      for (const s of seeds.values()) {
        if (this.isImportOnly(s) || noreturn.has(s.start)) continue;
        const t = traces.get(s.start);
        if (t !== undefined && !t.mayReturn && t.insns.size > 0) {
          noreturn.add(s.start);
          newly.add(s.start);
          this.#noreturnSeq.set(s.start, this.#noreturnSeq.size);
        }
      }
      const stale = this.#staleness();
      let i = 0;
      for (const s of dirty) {
        if (this.isImportOnly(s) || !stale(s.start)) continue;
        this.run(s);
        if ((++i & 63) === 0 && pacer.due()) await pacer.tick(0.7 + 0.02 * round, "Re-exploring");
      }
      // Only callers of functions that just turned out not to return can change.
      dirty = [];
      if (newly.size === 0 && round > 0) break;
      for (const s of seeds.values()) {
        const t = traces.get(s.start);
        if (t === undefined) continue;
        if (
          t.calls.some((c) => newly.has(c.to)) ||
          t.edges.some((e) => e.kind === "tail" && newly.has(e.to))
        ) dirty.push(s);
        if (pacer.due()) await pacer.tick(0.7 + 0.02 * round, "Re-exploring");
      }
    }
  }

  /**
   * Whether exploring a start again could give another trace than the one it has: exploration
   * asks only whether addresses are function starts (or before the next start) and whether
   * call and tail-jump targets return, so a trace is stale when a start was added since inside
   * the addresses it reached or branched to, or a target of its calls and tail jumps was found
   * not to return since. The fixpoint re-explores only those, which is what exploring them all
   * again would change.
   */
  #staleness(): (start: number) => boolean {
    const log = this.#seedLog;
    // (start, position in the log), by start.
    const order = Array.from(log.keys()).sort((x, y) => log[x]! - log[y]!);
    const sorted = Float64Array.from(order, (k) => log[k]!);
    const seq = this.#noreturnSeq;
    return (start) => {
      const t = this.traces.get(start);
      const stamp = this.#stamps.get(start);
      // PowerPC64 asks about local entries of any call target: no cheap bound.
      if (t === undefined || stamp === undefined || this.ctx.localEntryOffset > 0) return true;
      for (const c of t.calls) if ((seq.get(c.to) ?? -1) >= stamp.noreturn) return true;
      let lo = start;
      let hi = start;
      const insns = t.insns.array;
      if (insns.length > 0) {
        lo = Math.min(lo, insns[0]!);
        // Fall-through asks about the address after the last instruction (and a delay slot).
        hi = Math.max(hi, insns[insns.length - 1]! + 32);
      }
      for (const e of t.edges) {
        if (e.kind === "tail") {
          if ((seq.get(e.to) ?? -1) >= stamp.noreturn) return true;
          // A tail target was a start already, or outside the range, which only shrinks.
          continue;
        }
        lo = Math.min(lo, e.to);
        hi = Math.max(hi, e.to);
      }
      if (stamp.seeds === log.length) return false;
      for (let k = lowerBound(sorted, lo); k < sorted.length && sorted[k]! <= hi; k++) {
        if (order[k]! >= stamp.seeds) return true;
      }
      return false;
    };
  }

  /** Phase 6: split-off `.cold` parts found without symbols join the function they belong to. */
  async mergeColdParts(): Promise<void> {
    this.pacer.check();
    mergeColdParts(this.seeds, this.traces, (s) => this.run(s), this.entry, (start) => {
      this.seeds.delete(start);
      this.#starts.set(start, 0);
    }, (a) => this.norm(a));
    this.#sortedStarts = undefined;
    await this.pacer.tick(0.8, "Merging split-off parts");
  }

  /** Phase 7: CFG, cross-references, strings and names as plain data. */
  async build(): Promise<AnalysisData> {
    const data = await this.#buildData();
    if (this.#learnsModes) data.armModes = this.cache.modes.marks();
    return data;
  }

  #buildData(): Promise<AnalysisData> {
    return buildAnalysisData({
      image: this.image,
      cache: this.cache,
      seeds: this.seeds,
      traces: this.traces,
      noreturn: this.noreturn,
      importAt: this.importAt,
      slotTarget: this.slotTarget,
      entry: this.entry,
      pacer: this.pacer,
      minStringLength: this.options.minStringLength ?? 4,
      stringsInCode: this.options.stringsInCode === true,
      dataPointers: this.pointers,
      // Only a call proves a start inside an unwind extent (nothing else may make one there).
      nested: (a) => {
        const s = this.seeds.get(a);
        return s !== undefined && TRUST[s.source] > TRUST.exception_table &&
          this.ranges.contains(a);
      },
    });
  }
}

/** Index of the first element of sorted `st` that is ≥ `value`. */
function lowerBound(st: ArrayLike<number>, value: number): number {
  let lo = 0;
  let hi = st.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (st[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Whether an import stub (sorted `stubs`) lies in [start, end): an unwind entry over a PLT. */
function coversImport(stubs: readonly number[], start: number, end: number | undefined): boolean {
  return end !== undefined && (stubs[lowerBound(stubs, start)] ?? Infinity) < end;
}

/** Whether `addr` lies in a section of import stubs or lazy-binding entries (`.plt*`, `__stubs`). */
function inStubSection(image: BinaryImage, addr: number): boolean {
  return /^(\.plt|__stubs|__stub_helper)/.test(image.sectionAt(addr)?.name ?? "");
}

/** Code addresses held by relocated words and aligned pointer-sized words of data sections. */
function dataPointers(
  image: BinaryImage,
  cache: CodeCache,
  check: () => void,
): { from: number; to: number }[] {
  const out: { from: number; to: number }[] = [];
  for (const r of image.relocations) {
    if (r.target !== undefined && cache.isCode(r.target)) {
      out.push({ from: r.address, to: r.target });
    }
  }
  // Position-independent images list every pointer in relocations; scanning their data too
  // would mistake offsets and packed integers for addresses.
  if (out.length > 0) return out;
  const size = image.bits === 64 ? 8 : 4;
  const little = image.endian === "little";
  for (const s of image.sections) {
    if ((s.kind !== "data" && s.kind !== "rodata") || s.fileSize === 0) continue;
    if (
      /^(\.eh_frame|\.gcc_except|\.dyn|\.gnu|\.rela?|\.note|\.hash|\.pdata|\.xdata)/.test(s.name)
    ) continue;
    const b = image.read(s.start, Math.min(s.end - s.start, s.fileSize));
    if (b === undefined) continue;
    const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
    for (let o = (size - (s.start % size)) % size; o + size <= b.length; o += size) {
      if ((o & 0xfffff) < size) check();
      const p = size === 8 ? Number(v.getBigUint64(o, little)) : v.getUint32(o, little);
      if (p !== 0 && cache.isCode(p)) out.push({ from: s.start + o, to: p });
    }
  }
  return out;
}

/**
 * Without symbols, a split-off `.cold` part has its own unwind entry and looks like a function.
 * One that is never called, is entered only by jumps from a single function, and either never
 * returns or jumps back into that function's body is that function's chunk.
 */
function mergeColdParts(
  seeds: Map<number, FunctionSeed>,
  traces: Map<number, Trace>,
  run: (s: FunctionSeed) => Trace,
  entry: number | undefined,
  drop: (start: number) => void,
  norm: (a: number) => number,
): void {
  const called = new Set<number>();
  const jumpers = new Map<number, Set<number>>();
  for (const [start, t] of traces) {
    for (const c of t.calls) called.add(c.to);
    for (const e of t.edges) {
      if (e.kind !== "tail") continue;
      const set = jumpers.get(e.to) ?? new Set<number>();
      set.add(start);
      jumpers.set(e.to, set);
    }
    for (const p of t.codePointers) called.add(norm(p));
  }
  const parents = new Set<FunctionSeed>();
  for (const s of [...seeds.values()]) {
    if (TRUST[s.source] < TRUST.exception_table || s.name !== undefined || s.start === entry) {
      continue;
    }
    if (called.has(s.start)) continue;
    const from = jumpers.get(s.start);
    if (from === undefined || from.size !== 1) continue;
    const parentStart = [...from][0]!;
    const parent = seeds.get(parentStart);
    const t = traces.get(s.start);
    if (parent === undefined || t === undefined || parentStart === s.start) continue;
    const backIntoParent = t.edges.some((e) =>
      e.kind === "tail" && e.to !== parentStart && traces.get(parentStart)?.insns.has(e.to) === true
    );
    if (t.mayReturn && !backIntoParent) continue;
    parent.extra.push(s.start);
    if (parent.ranges !== undefined && s.ranges !== undefined) parent.ranges.push(...s.ranges);
    drop(s.start);
    traces.delete(s.start);
    parents.add(parent);
  }
  // Once per parent: a large function can have many split-off parts.
  for (const p of parents) if (seeds.has(p.start)) run(p);
}

/** PowerPC64 ELFv2 global entry: `addis r2, r12, hi; addi r2, r2, lo` computes the TOC pointer. */
function isTocSetup(image: BinaryImage, addr: number): boolean {
  const b = image.read(addr, 8);
  if (b === undefined) return false;
  const v = new DataView(b.buffer, b.byteOffset, 8);
  const little = image.endian === "little";
  return v.getUint32(0, little) >>> 16 === 0x3c4c && v.getUint32(4, little) >>> 16 === 0x3842;
}

/**
 * PowerPC64 linker call stubs in `.text` (`std r2, 24(r1); ld r12, off(r2); mtctr r12; bctr`,
 * or with `addis r12, r2, hi` first): each jumps through one PLT slot, so it is that import's
 * stub. Returns stub address → slot.
 */
function ppcCallStubs(image: BinaryImage, toc: number): Map<number, number> {
  const out = new Map<number, number>();
  const little = image.endian === "little";
  for (const s of image.sections) {
    if (s.kind !== "code") continue;
    const b = image.read(s.start, s.end - s.start);
    if (b === undefined) continue;
    const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
    const w = (o: number) => (o + 4 <= b.length ? v.getUint32(o, little) : 0);
    for (let o = 0; o + 16 <= b.length; o += 4) {
      if (w(o) !== 0xf8410018) continue;
      let slot = toc;
      let k = o + 4;
      if (w(k) >>> 16 === 0x3d82) {
        slot += ((w(k) & 0xffff) << 16) >> 0;
        k += 4;
        if (w(k) >>> 16 !== 0xe98c) continue;
      } else if (w(k) >>> 16 !== 0xe982) continue;
      slot += ((w(k) & 0xffff) << 16) >> 16;
      if (w(k + 4) === 0x7d8903a6 && w(k + 8) === 0x4e800420) out.set(s.start + o, slot);
    }
  }
  return out;
}

/** Whether `insn` takes its memRef as an address: x86 `lea`, AArch64 `adr`. */
function takesAddress(image: BinaryImage, address: number, size: number): boolean {
  const b = image.read(address, Math.min(size, 4));
  if (b === undefined) return false;
  if (image.arch === "x86" || image.arch === "x86_64") {
    let i = 0;
    while (b[i] === 0x66 || b[i] === 0x67) i++;
    if (image.bits === 64 && ((b[i] ?? 0) & 0xf0) === 0x40) i++;
    return b[i] === 0x8d;
  }
  if (image.arch === "aarch64" && b.length === 4) {
    const w = new DataView(b.buffer, b.byteOffset, 4).getUint32(0, true);
    return ((w & 0x9f000000) >>> 0) === 0x10000000;
  }
  return false;
}

/** Zero bytes in a row that are padding or data, never code reached by flowing into them. */
const ZERO_RUN = 32;

function zeroRunAt(cache: CodeCache, a: number): boolean {
  if (cache.byteAt(a) !== 0) return false;
  for (let i = 1; i < ZERO_RUN; i++) if (cache.byteAt(a + i) !== 0) return false;
  return true;
}

/**
 * Position-dependent x86 code loads function addresses as immediates: `mov edi, main` before
 * `__libc_start_main`, `push main` on i386, `mov rdi, imm32` sign-extended. Only those exact
 * encodings count; other immediates are numbers.
 */
function x86ImmediatePointer(
  image: BinaryImage,
  cache: CodeCache,
  address: number,
  size: number,
): number | undefined {
  // Position-independent code (a PIE, a shared object) has no relocations in its code: an
  // immediate there is a number (`mov ecx, 0x4000`), never an address.
  if (size < 5 || size > 7 || image.info.elf_type === "DYN") return undefined;
  // Most instructions fail on their first byte: test it before taking a view of the bytes.
  const b0 = cache.byteAt(address);
  if (
    b0 >= 0 && !(size <= 6 && b0 >= 0xb8 && b0 <= 0xbf) && !(size === 6 && b0 === 0x41) &&
    !(size === 5 && b0 === 0x68) && !(size === 7 && (b0 & 0xf8) === 0x48)
  ) return undefined;
  const b = image.read(address, size);
  if (b === undefined) return undefined;
  let i = 0;
  if (size === 6 && (b[0] === 0x41)) i = 1; // mov r8d..r15d, imm32
  const imm = (o: number) =>
    (b[o]! | (b[o + 1]! << 8) | (b[o + 2]! << 16) | (b[o + 3]! << 24)) >>> 0;
  if (size === 5 + i && b[i]! >= 0xb8 && b[i]! <= 0xbf) return imm(i + 1);
  if (size === 5 && b[0] === 0x68 && image.bits === 32) return imm(1);
  // REX.W C7 /0 with a register operand: mov r64, sign-extended imm32 (positive addresses only).
  if (size === 7 && (b[0]! & 0xf8) === 0x48 && b[1] === 0xc7 && (b[2]! & 0xf8) === 0xc0) {
    const v = imm(3);
    return v < 0x80000000 ? v : undefined;
  }
  return undefined;
}

/**
 * RISC-V builds an address in two instructions: `auipc`/`lui rd, hi` then `addi rd, rd, lo`
 * (`la a0, main` in `_start`). Given the `addi`, the full address when the word before it is
 * the matching `auipc`/`lui` (`lui` only where the file is loaded at a fixed address).
 */
export function riscvPairPointer(
  image: BinaryImage,
  address: number,
  size: number,
): number | undefined {
  if (size !== 4) return undefined;
  const b = image.read(address - 4, 8);
  if (b === undefined) return undefined;
  const v = new DataView(b.buffer, b.byteOffset, 8);
  const hi = v.getUint32(0, true);
  const lo = v.getUint32(4, true);
  if ((lo & 0x707f) !== 0x13) return undefined; // addi
  const rd = (lo >>> 7) & 31;
  if (rd === 0 || ((lo >>> 15) & 31) !== rd || ((hi >>> 7) & 31) !== rd) return undefined;
  const op = hi & 0x7f;
  if (op !== 0x17 && op !== 0x37) return undefined; // auipc, lui
  // A position-independent file (PIE, shared object) has no relocations in its code, so a
  // `lui` pair there is a number (zstd's 0x20020 masks), never an address: only `auipc` is.
  if (op === 0x37 && image.info.elf_type === "DYN") return undefined;
  const value = (hi & 0xfffff000) + (lo >> 20);
  return op === 0x17 ? address - 4 + value : value;
}

/** `gotTarget` of the exploration context: an import's stub, else the code address in the slot. */
function gotTargets(
  image: BinaryImage,
  cache: CodeCache,
  imports: Map<number, number>,
): ExploreContext["gotTarget"] {
  const slotOf = gotSlotResolver(image, cache);
  if (slotOf === undefined) return undefined;
  const little = image.endian === "little";
  const size = image.bits === 64 ? 8 : 4;
  return (insn, before) => {
    const slot = slotOf(insn, before);
    if (slot === undefined) return undefined;
    const imp = imports.get(slot);
    if (imp !== undefined) return imp;
    const b = image.read(slot, size);
    if (b === undefined) return undefined;
    const v = new DataView(b.buffer, b.byteOffset, size);
    const to = size === 8 ? Number(v.getBigUint64(0, little)) : v.getUint32(0, little);
    return cache.isCode(to) ? to : undefined;
  };
}

/** Resolve each indirect jump once: functions are explored several times. */
function memoSwitches(
  resolve: ExploreContext["resolveSwitch"],
  memo: Map<number, SwitchTable | undefined>,
): ExploreContext["resolveSwitch"] {
  return (ijump, before) => {
    if (memo.has(ijump.address)) return memo.get(ijump.address);
    const r = resolve(ijump, before);
    memo.set(ijump.address, r);
    return r;
  };
}
