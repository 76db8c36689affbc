/**
 * Names of addresses in one database: symbols, exports, imports, sections, entry points and user
 * names (which win). Resolves address expressions and labels addresses as `name+0x10`.
 */
import type { NameResolver } from "../../src/protocol/address.ts";
import { nearNames } from "../../src/protocol/address.ts";
import type { BinaryImage } from "./formats/image.ts";
import type { Analysis } from "./analysis/analysis.ts";

/** A named address and where the name came from. */
export interface NamedAddress {
  name: string;
  address: number;
  size: number;
  kind: "function" | "object" | "other";
  source: string;
}

/** The name index of one database. */
export class NameIndex implements NameResolver {
  #byName = new Map<string, number>();
  #entries: NamedAddress[] = [];
  #sorted: NamedAddress[] = [];
  #user = new Map<number, string>();
  #userByName = new Map<string, number>();
  #analysis: Analysis | undefined;

  constructor(image: BinaryImage) {
    const add = (e: NamedAddress) => {
      if (!e.name) return;
      this.#entries.push(e);
      if (!this.#byName.has(e.name)) this.#byName.set(e.name, e.address);
    };
    for (const s of image.symbols) {
      if (s.address !== 0) {
        add({ name: s.name, address: s.address, size: s.size, kind: s.kind, source: s.source });
      }
    }
    for (const e of image.exports) {
      if (!e.forwarder) {
        add({ name: e.name, address: e.address, size: 0, kind: "function", source: "export" });
      }
    }
    for (const i of image.imports) {
      add({ name: i.name, address: i.address, size: 0, kind: "function", source: "import" });
      if (i.slot !== undefined && i.slot !== i.address) {
        add({
          name: `__imp_${i.name}`,
          address: i.slot,
          size: image.bits / 8,
          kind: "object",
          source: "import_slot",
        });
      }
    }
    for (const p of image.entryPoints) {
      add({ name: p.name, address: p.address, size: 0, kind: "function", source: "entry" });
    }
    for (const s of image.sections) {
      if (s.name && s.end > s.start) {
        add({
          name: s.name,
          address: s.start,
          size: s.end - s.start,
          kind: "other",
          source: "section",
        });
      }
    }
    this.#resort();
  }

  #resort(): void {
    this.#sorted = [...this.#entries].filter((e) => e.source !== "section")
      .sort((a, b) => a.address - b.address || a.name.localeCompare(b.name));
  }

  /** Adds the analysis's names (functions, `sub_…`, `loc_…`, strings) behind the file's own. */
  attachAnalysis(analysis: Analysis): void {
    this.#analysis = analysis;
  }

  /** Sets or clears (`undefined`) the user name at `address`. */
  setUserName(address: number, name: string | undefined): void {
    const old = this.#user.get(address);
    if (old !== undefined) this.#userByName.delete(old);
    if (name === undefined) this.#user.delete(address);
    else {
      this.#user.set(address, name);
      this.#userByName.set(name, address);
    }
  }

  /** The user name at `address`, if any. */
  userName(address: number): string | undefined {
    return this.#user.get(address);
  }

  lookup(name: string): number | undefined {
    return this.#userByName.get(name) ?? this.#byName.get(name) ?? this.#analysis?.lookup(name);
  }

  suggest(name: string): string[] {
    return nearNames(name, [...this.#userByName.keys(), ...this.#byName.keys()]);
  }

  /** Every named address in address order (sections excluded). */
  all(): readonly NamedAddress[] {
    return this.#sorted;
  }

  /** The best name exactly at `address`: user name, then symbol/export/import. */
  nameAt(address: number): string | undefined {
    return this.#user.get(address) ?? this.baseName(address);
  }

  /** The name at `address` had it no user name: symbol, export, import or analysis name. */
  baseName(address: number): string | undefined {
    const a = this.#analysis?.nameAt(address);
    if (a !== undefined) return a;
    const i = this.#lowerBound(address);
    const e = this.#sorted[i];
    return e && e.address === address ? e.name : undefined;
  }

  /** The closest name at or below `address`, within `maxDistance`. */
  nearest(address: number, maxDistance = 0x10000): { name: string; offset: number } | undefined {
    const exact = this.nameAt(address);
    if (exact !== undefined) return { name: exact, offset: 0 };
    const an = this.#analysis?.nearestName(address);
    // A chunk placed before its function's start would give a negative offset: skip it.
    if (an && an.offset >= 0 && address - an.address <= maxDistance) {
      return { name: this.#user.get(an.address) ?? an.name, offset: an.offset };
    }
    let i = this.#lowerBound(address);
    if (this.#sorted[i]?.address !== address) i--;
    const e = this.#sorted[i];
    if (!e || address - e.address > maxDistance) return undefined;
    if (e.size > 0 && address >= e.address + e.size) return undefined;
    return { name: this.#user.get(e.address) ?? e.name, offset: address - e.address };
  }

  /** `symbol+0x…` when `address` lies inside a sized symbol (a data object, a function). */
  containing(address: number): string | undefined {
    const exact = this.nameAt(address);
    if (exact !== undefined) return exact;
    let i = this.#lowerBound(address);
    if (this.#sorted[i]?.address !== address) i--;
    for (; i >= 0 && i > this.#lowerBound(address) - 8; i--) {
      const e = this.#sorted[i]!;
      if (e.size > 0 && address < e.address + e.size) {
        return `${this.#user.get(e.address) ?? e.name}+0x${(address - e.address).toString(16)}`;
      }
    }
    return undefined;
  }

  #lowerBound(address: number): number {
    let lo = 0;
    let hi = this.#sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.#sorted[mid]!.address < address) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
