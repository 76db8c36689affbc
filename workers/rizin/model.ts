/**
 * What remcp knows about the database rizin has open, read once per rizin process and kept in
 * step with annotations: layout, symbols, imports, functions, flags and strings, and the name
 * index that address expressions resolve against (synchronously, as the parser needs).
 */
import { type NameResolver, nearNames } from "../../src/protocol/address.ts";
import type { AnnotationStore } from "../shared/store/store.ts";
import type { Conn } from "./session.ts";
import {
  parseRz,
  RzEntry,
  RzFlag,
  RzFunction,
  RzImport,
  RzInfo,
  RzMap,
  RzReloc,
  RzSection,
  RzString,
  RzSymbol,
} from "./rz_json.ts";
import { z } from "zod";

/** A memory range with a name. */
export interface Range {
  name: string;
  start: number;
  end: number;
  fileOffset: number;
  fileSize: number;
  perms: string;
  kind: string;
}

/** A function as remcp shows it. */
export interface Fn {
  start: number;
  end: number;
  size: number;
  /** rizin's own name (what rizin commands accept). */
  rzName: string;
  blocks: number;
  instructions: number;
  cc: number;
  noreturn: boolean;
  type: string;
  signature: string | undefined;
  calls: { at: number; to: number }[];
  data: { at: number; to: number }[];
}

/** A named address. */
export interface Named {
  name: string;
  address: number;
  size: number;
  kind: "function" | "object" | "other";
  source: string;
}

/** Facts that do not change with analysis (read before it runs). */
export interface StaticFacts {
  info: z.output<typeof RzInfo>;
  sections: Range[];
  segments: Range[];
  maps: { start: number; end: number; name: string }[];
  entries: z.output<typeof RzEntry>[];
  symbols: z.output<typeof RzSymbol>[];
  imports: z.output<typeof RzImport>[];
  exports: z.output<typeof RzSymbol>[];
  relocs: z.output<typeof RzReloc>[];
}

/** Facts analysis produced. */
export interface AnalysisFacts {
  functions: Fn[];
  flags: z.output<typeof RzFlag>[];
  main: number | undefined;
}

async function list<T extends z.ZodType>(c: Conn, cmd: string, item: T): Promise<z.output<T>[]> {
  const v = await c.json<unknown>(cmd, []);
  return parseRz(z.array(item), v, cmd);
}

/** Reads the static facts (before analysis; usable while it runs). */
export async function readStatic(c: Conn): Promise<StaticFacts> {
  const info = parseRz(RzInfo, await c.json("ij", {}), "ij");
  const rangesOf = (raw: z.output<typeof RzSection>[], segment: boolean): Range[] =>
    raw.filter((s) => (s.vsize > 0 || s.size > 0) && s.vaddr <= Number.MAX_SAFE_INTEGER)
      .filter((s) => s.name !== "" || segment)
      .map((s) => {
        const perms = permsOf(s.perm);
        return {
          name: s.name,
          start: s.vaddr,
          end: s.vaddr + (s.vsize || s.size),
          fileOffset: s.paddr,
          fileSize: s.size,
          perms,
          kind: kindOf(s.name, perms, s.type ?? undefined, s.size),
        };
      }).sort((a, b) => a.start - b.start);
  const sections = rangesOf(await list(c, "iSj", RzSection), false);
  const segments = rangesOf(await list(c, "iSSj", RzSection), true);
  // `to` is exclusive in `omlj`.
  const maps = (await list(c, "omlj", RzMap)).map((m) => ({
    start: m.from,
    end: m.to,
    name: m.name ?? "",
  })).sort((a, b) => a.start - b.start);
  const symbols = await list(c, "isj", RzSymbol);
  return {
    info,
    sections,
    segments,
    maps,
    entries: await list(c, "iej", RzEntry),
    symbols,
    imports: await list(c, "iij", RzImport),
    exports: await list(c, "iEj", RzSymbol),
    relocs: await list(c, "irj", RzReloc),
  };
}

/** Reads what analysis found. */
export async function readAnalysis(c: Conn, main: number | undefined): Promise<AnalysisFacts> {
  const raw = await list(c, "aflj", RzFunction);
  const functions = raw.map((f): Fn => {
    const end = f.maxbound && f.maxbound > f.offset ? f.maxbound : f.offset + (f.size ?? 0);
    const refs = (l: { from: number; to: number }[] | null | undefined) =>
      (l ?? []).map((r) => ({ at: r.from, to: r.to }));
    return {
      start: f.offset,
      end: Math.max(end, f.offset + 1),
      size: Math.max(end - f.offset, 0),
      rzName: f.name,
      blocks: f.nbbs ?? 0,
      instructions: f.ninstrs ?? 0,
      cc: f.cc ?? 1,
      noreturn: f.noreturn ?? false,
      type: f.type ?? "fcn",
      signature: f.signature ?? undefined,
      calls: refs((f.callrefs ?? []).filter((r) => (r.type ?? "").toUpperCase() === "CALL")),
      data: refs(f.datarefs ?? []),
    };
  }).sort((a, b) => a.start - b.start);
  const flags = await list(c, "flj", RzFlag);
  return { functions, flags, main };
}

function permsOf(perm: string): string {
  const p = perm.replace(/^-(?=[-r][-w][-x]$)/, "");
  const r = p.includes("r") ? "r" : "-";
  const w = p.includes("w") ? "w" : "-";
  const x = p.includes("x") ? "x" : "-";
  return r + w + x;
}

function kindOf(name: string, perms: string, type: string | undefined, fileSize: number): string {
  if (perms.includes("x")) return "code";
  if (/bss/i.test(name) || type === "NOBITS" || (fileSize === 0 && perms.includes("w"))) {
    return "bss";
  }
  if (perms.includes("w")) return "data";
  if (perms.includes("r")) return "rodata";
  return "other";
}

/** The display name of a rizin symbol (its name in the file, without rizin's prefixes). */
export function symbolName(s: z.output<typeof RzSymbol>): string {
  return s.realname || s.name;
}

/** A string rizin found. */
export interface StringEntry {
  address: number;
  length: number;
  encoding: string;
  section: string | undefined;
  text: string;
}

/** Reads rizin's strings (`izj`: strings in data sections). */
export async function readStrings(c: Conn): Promise<StringEntry[]> {
  return (await list(c, "izj", RzString)).map((s) => ({
    address: s.vaddr,
    length: s.length ?? s.string.length,
    encoding: /16/.test(s.type ?? "") ? "utf16" : /32/.test(s.type ?? "") ? "utf32" : "ascii",
    section: s.section ?? undefined,
    text: s.string,
  })).sort((a, b) => a.address - b.address);
}

/** Names, functions and lookups over the current facts. */
export class Model implements NameResolver {
  /** Strings, read on first use (see {@link readStrings}). */
  strings: StringEntry[] | undefined;
  readonly st: StaticFacts;
  readonly an: AnalysisFacts;
  readonly #store: AnnotationStore;
  #byName = new Map<string, number>();
  #sorted: { address: number; name: string }[] = [];
  #symbolAt = new Map<number, string>();
  #fnByStart = new Map<number, Fn>();
  #importAt = new Map<number, string>();

  constructor(st: StaticFacts, an: AnalysisFacts, store: AnnotationStore) {
    this.st = st;
    this.an = an;
    this.#store = store;
    this.#index();
  }

  /** Rebuilds the indexes (after a rename). */
  reindex(): void {
    this.#byName.clear();
    this.#symbolAt.clear();
    this.#fnByStart.clear();
    this.#importAt.clear();
    this.#index();
  }

  #index(): void {
    const put = (name: string | null | undefined, address: number | null | undefined) => {
      if (name && address !== undefined && address !== null && !this.#byName.has(name)) {
        this.#byName.set(name, address);
      }
    };
    for (const [a, n] of this.#store.all("name")) put(n, a);
    for (const i of this.st.imports) {
      if (i.plt) {
        this.#importAt.set(i.plt, i.name);
      }
    }
    for (const s of this.st.symbols) {
      if (!s.vaddr || s.type === "SECT" || s.type === "FILE") continue;
      if (!this.#symbolAt.has(s.vaddr) && !s.is_imported) {
        this.#symbolAt.set(s.vaddr, symbolName(s));
      }
    }
    if (this.an.main !== undefined && !this.#symbolAt.has(this.an.main)) {
      this.#symbolAt.set(this.an.main, "main");
    }
    for (const f of this.an.functions) {
      this.#fnByStart.set(f.start, f);
      put(this.functionName(f), f.start);
    }
    for (const s of this.st.symbols) {
      if (!s.vaddr) continue;
      put(symbolName(s), s.vaddr);
      put(s.name, s.vaddr);
      put(s.flagname, s.vaddr);
    }
    for (const f of this.an.functions) put(f.rzName, f.start);
    for (const f of this.an.flags) put(f.name, f.offset);
    for (const s of this.st.sections) put(s.name, s.start);
    for (const [a, n] of this.#importAt) put(`${n}@plt`, a);
    const named = new Map<number, string>();
    for (const [a, n] of this.#symbolAt) named.set(a, n);
    for (const f of this.an.functions) named.set(f.start, this.functionName(f));
    for (const [a, n] of this.#store.all("name")) named.set(a, n);
    this.#sorted = [...named].map(([address, name]) => ({ address, name }))
      .sort((a, b) => a.address - b.address);
  }

  /** NameResolver: the address a name stands for. */
  lookup(name: string): number | undefined {
    return this.#byName.get(name);
  }

  /** NameResolver: names close to `name`. */
  suggest(name: string): string[] {
    return nearNames(name, this.#byName.keys());
  }

  /** The user's name at an address, if any. */
  userName(address: number): string | undefined {
    return this.#store.get("name", address);
  }

  /** The name remcp shows for a function. */
  functionName(f: Fn): string {
    return this.userName(f.start) ?? this.#symbolAt.get(f.start) ??
      this.#importAt.get(f.start) ?? f.rzName.replace(/^sym\.imp\./, "");
  }

  /** The name shown for an address: user, symbol, function or import name. */
  nameAt(address: number): string | undefined {
    const f = this.#fnByStart.get(address);
    return this.userName(address) ?? (f ? this.functionName(f) : undefined) ??
      this.#symbolAt.get(address) ?? this.#importAt.get(address);
  }

  /** The function starting at `address`. */
  functionAt(address: number): Fn | undefined {
    return this.#fnByStart.get(address);
  }

  /** The function containing `address` (the latest-starting one whose range covers it). */
  functionContaining(address: number): Fn | undefined {
    const fns = this.an.functions;
    let lo = 0;
    let hi = fns.length - 1;
    let best = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (fns[mid]!.start <= address) {
        best = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    for (let i = best; i >= 0 && i > best - 64; i--) {
      const f = fns[i]!;
      if (address >= f.start && address < f.end) return f;
    }
    return undefined;
  }

  /** The nearest name at or below `address`, with the offset from it. */
  nearest(address: number): { name: string; offset: number } | undefined {
    const s = this.#sorted;
    let lo = 0;
    let hi = s.length - 1;
    let best = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (s[mid]!.address <= address) {
        best = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    const n = s[best];
    if (!n) return undefined;
    const seg = this.sectionAt(address);
    if (seg && n.address < seg.start) return undefined;
    return { name: n.name, offset: address - n.address };
  }

  /** `name+0x10` for an address, or undefined when nothing is near. */
  label(address: number): string | undefined {
    const f = this.functionContaining(address);
    if (f) {
      const n = this.functionName(f);
      return address === f.start ? n : `${n}+0x${(address - f.start).toString(16)}`;
    }
    const n = this.nearest(address);
    if (!n) return undefined;
    return n.offset === 0 ? n.name : `${n.name}+0x${n.offset.toString(16)}`;
  }

  /** Whether rizin can read `address`. */
  isMapped(address: number): boolean {
    return this.st.maps.some((m) => address >= m.start && address < m.end) ||
      (this.st.maps.length === 0 &&
        this.st.segments.some((s) => address >= s.start && address < s.end));
  }

  /** The section containing `address`. */
  sectionAt(address: number): Range | undefined {
    return this.st.sections.find((s) => address >= s.start && address < s.end);
  }

  /** The segment containing `address`. */
  segmentAt(address: number): Range | undefined {
    return this.st.segments.find((s) => address >= s.start && address < s.end);
  }

  /** Every named address for list_names. */
  names(): Named[] {
    const out = new Map<string, Named>();
    const add = (n: Named) => {
      const key = `${n.address}:${n.name}`;
      if (!out.has(key)) out.set(key, n);
    };
    for (const [a, n] of this.#store.all("name")) {
      add({
        name: n,
        address: a,
        size: this.functionAt(a)?.size ?? 0,
        kind: "other",
        source: "user",
      });
    }
    for (const s of this.st.symbols) {
      if (!s.vaddr || s.type === "SECT" || s.type === "FILE") continue;
      const kind = s.type === "FUNC" ? "function" : s.type === "OBJ" ? "object" : "other";
      add({
        name: this.userName(s.vaddr) ?? symbolName(s),
        address: s.vaddr,
        size: s.size ?? 0,
        kind,
        source: s.is_imported ? "import" : "symbol",
      });
    }
    for (const f of this.an.functions) {
      add({
        name: this.functionName(f),
        address: f.start,
        size: f.size,
        kind: "function",
        source: this.userName(f.start) ? "user" : "analysis",
      });
    }
    if (this.an.main !== undefined) {
      add({
        name: this.nameAt(this.an.main) ?? "main",
        address: this.an.main,
        size: 0,
        kind: "function",
        source: "entry",
      });
    }
    // A user name on a function also shows as kind function.
    const byAddr = new Map<number, Named[]>();
    for (const n of out.values()) byAddr.set(n.address, [...(byAddr.get(n.address) ?? []), n]);
    const result: Named[] = [];
    for (const group of byAddr.values()) {
      const seen = new Set<string>();
      for (const n of group) {
        if (seen.has(n.name)) continue;
        seen.add(n.name);
        result.push(
          n.source === "user" && this.functionAt(n.address) ? { ...n, kind: "function" } : n,
        );
      }
    }
    return result.sort((a, b) => a.address - b.address || a.name.localeCompare(b.name));
  }
}
