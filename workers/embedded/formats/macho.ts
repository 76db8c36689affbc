/**
 * Mach-O (32/64-bit, either byte order) → {@link BinaryImage}: segments, sections, symbols,
 * imports through stubs / lazy pointers / GOT (indirect symbols, bind opcodes, chained fixups),
 * the export trie, LC_MAIN / LC_UNIXTHREAD, function starts and `__eh_frame`.
 */

import { Cursor } from "./_cursor.ts";
import { type MachoCommands, type MachoSection, parseMachoCommands } from "./_macho_commands.ts";
import {
  type ChainedFixups,
  type DyldBind,
  type DyldSegment,
  readBindOpcodes,
  readChainedFixups,
  readExportTrie,
} from "./_macho_dyld.ts";
import { makeImage } from "./_mapped_image.ts";
import { asSource, type ByteSource, subSource } from "./_source.ts";
import { codeExtent, cutWarning } from "./_extent.ts";
import { optionalPart } from "./_optional_part.ts";
import { thumbOracle } from "./_thumb.ts";
import { parseEhFrame } from "./eh_frame.ts";
import type {
  BinaryImage,
  EntryPoint,
  ExportEntry,
  FunctionHint,
  ImportEntry,
  Relocation,
  Section,
  Segment,
  SymbolEntry,
} from "./image.ts";

const S_ZEROFILL = 0x1;
const S_NON_LAZY_SYMBOL_POINTERS = 0x6;
const S_LAZY_SYMBOL_POINTERS = 0x7;
const S_SYMBOL_STUBS = 0x8;
const S_MOD_INIT_FUNC_POINTERS = 0x9;
const S_MOD_TERM_FUNC_POINTERS = 0xa;
const S_GB_ZEROFILL = 0xc;
const S_THREAD_LOCAL_ZEROFILL = 0x12;
const S_INIT_FUNC_OFFSETS = 0x16;
const CODE_ATTRS = 0x80000400;
const MAX_SYMBOLS = 5_000_000;

function protString(p: number): string {
  return `${p & 1 ? "r" : "-"}${p & 2 ? "w" : "-"}${p & 4 ? "x" : "-"}`;
}

/** A Mach-O nlist entry with its name decoded. */
interface Nlist {
  name: string;
  type: number;
  sect: number;
  desc: number;
  value: number;
}

function readNlists(m: MachoCommands, warnings: string[]): Nlist[] {
  const st = m.symtab;
  if (!st) return [];
  const { r } = m;
  const size = m.is64 ? 16 : 12;
  r.check(st.symoff, 0, "Symbol table starts outside the file");
  const fits = Math.floor((r.length - st.symoff) / size);
  const n = Math.min(st.nsyms, fits, MAX_SYMBOLS);
  if (n < st.nsyms) warnings.push(`symtab: ${st.nsyms} symbols claimed, ${n} read`);
  const strEnd = Math.min(st.stroff + st.strsize, r.length);
  const out: Nlist[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const o = st.symoff + i * size;
    const strx = r.u32(o);
    out[i] = {
      name: strx === 0 ? "" : r.cstring(st.stroff + strx, strEnd),
      type: r.u8(o + 4),
      sect: r.u8(o + 5),
      desc: r.u16(o + 6),
      value: m.is64 ? r.u64(o + 8) : r.u32(o + 8),
    };
  }
  return out;
}

function libraryName(m: MachoCommands, ordinal: number): string | undefined {
  if (ordinal > 0) return m.dylibs[ordinal - 1];
  return undefined;
}

/**
 * Parses the Mach-O at [sliceOffset, sliceOffset+sliceSize) of `file` (a whole thin file, or
 * one slice of a fat file). File offsets in the result are offsets in `file`.
 */
export function parseMacho(
  input: Uint8Array | ByteSource,
  sliceOffset = 0,
  sliceSize = input.length - sliceOffset,
  extraInfo: Record<string, unknown> = {},
): BinaryImage {
  const file = asSource(input);
  const warnings: string[] = [];
  const m = parseMachoCommands(subSource(file, sliceOffset, sliceSize), warnings);
  const { r } = m;
  // Segments hold everything the parser reads (the link-edit tables too); a dSYM's __DWARF is
  // debug information, never read whole.
  r.keep(
    m.segments.filter((s) => s.name !== "__DWARF").map((s) => ({
      offset: s.fileoff,
      size: s.filesize,
    })),
  );
  const ptrSize: 4 | 8 = m.bits === 64 ? 8 : 4;
  const text = m.segments.find((s) => s.fileoff === 0 && s.filesize > 0) ??
    m.segments.find((s) => s.name === "__TEXT");
  const imageBase = text?.vmaddr ?? 0;

  // Segments, sections, and the virtual-memory map (no __PAGEZERO-like inaccessible ranges).
  const segments: Segment[] = [];
  const mapping: Segment[] = [];
  const sections: Section[] = [];
  const flatSections: MachoSection[] = [];
  for (const s of m.segments) {
    let vmsize = s.vmsize;
    if (s.initprot & 4) {
      const fileOffset = sliceOffset + s.fileoff;
      vmsize = codeExtent(s.vmsize, { fileOffset, fileSize: s.filesize, fileLength: file.length });
      if (vmsize < s.vmsize) warnings.push(cutWarning(`segments: ${s.name}`, s.vmsize, vmsize));
    }
    const seg: Segment = {
      name: s.name,
      start: s.vmaddr,
      end: s.vmaddr + vmsize,
      fileOffset: sliceOffset + s.fileoff,
      fileSize: Math.min(s.filesize, vmsize),
      perms: protString(s.initprot),
    };
    segments.push(seg);
    if (s.initprot !== 0 || s.filesize > 0) mapping.push(seg);
    for (const sec of s.sections) {
      flatSections.push(sec);
      const type = sec.flags & 0xff;
      const zero = type === S_ZEROFILL || type === S_GB_ZEROFILL ||
        type === S_THREAD_LOCAL_ZEROFILL;
      let size = sec.size;
      if (!zero && sec.flags & CODE_ATTRS) {
        const fileOffset = sliceOffset + sec.offset;
        size = codeExtent(sec.size, { fileOffset, fileSize: sec.size, fileLength: file.length });
        if (size < sec.size) warnings.push(cutWarning(`sections: ${sec.sectname}`, sec.size, size));
      }
      sections.push({
        name: `${sec.segname},${sec.sectname}`,
        start: sec.addr,
        end: sec.addr + size,
        fileOffset: zero ? 0 : sliceOffset + sec.offset,
        fileSize: zero ? 0 : size,
        perms: seg.perms,
        kind: sec.flags & CODE_ATTRS
          ? "code"
          : zero
          ? "bss"
          : s.initprot & 2 && s.name !== "__DATA_CONST"
          ? "data"
          : "rodata",
        segment: s.name,
      });
    }
  }
  const vaToOff = (addr: number): number | undefined => {
    for (const s of m.segments) {
      if (addr >= s.vmaddr && addr < s.vmaddr + Math.min(s.filesize, s.vmsize)) {
        return s.fileoff + (addr - s.vmaddr);
      }
    }
    return undefined;
  };

  // Symbols.
  const nlists = optionalPart(warnings, "symtab", [], () => readNlists(m, warnings));
  const symbols: SymbolEntry[] = [];
  const armModes: { addr: number; thumb: boolean }[] = [];
  for (const n of nlists) {
    if (n.type & 0xe0 || (n.type & 0x0e) !== 0x0e || !n.name) continue; // stabs; not N_SECT
    const sec = flatSections[n.sect - 1];
    const isCode = sec !== undefined && (sec.flags & CODE_ATTRS) !== 0;
    let address = n.value;
    if (m.arch === "arm" && isCode) {
      armModes.push({ addr: address - (address % 2), thumb: (n.desc & 0x8) !== 0 });
    }
    if (!Number.isSafeInteger(address)) continue;
    if (m.arch === "arm") address -= address % 2;
    symbols.push({
      name: n.name,
      address,
      size: 0,
      kind: isCode ? "function" : "object",
      source: "macho-symtab",
      global: (n.type & 1) !== 0,
    });
  }

  // Imports: indirect symbols give stub and pointer addresses per symbol.
  type Imp = { name: string; library?: string; stub?: number; slot?: number };
  const imps = new Map<string, Imp>();
  const impFor = (name: string, ordinal: number): Imp => {
    let i = imps.get(name);
    if (!i) {
      i = { name };
      const lib = libraryName(m, ordinal);
      if (lib !== undefined) i.library = lib;
      imps.set(name, i);
    }
    return i;
  };
  optionalPart(warnings, "indirect symbols", undefined, () => {
    if (!m.indirect || m.indirect.size === 0) return;
    const ind = m.indirect;
    const count = Math.floor(Math.min(ind.size, r.length - ind.off) / 4);
    for (const sec of flatSections) {
      const type = sec.flags & 0xff;
      const isStub = type === S_SYMBOL_STUBS;
      if (!isStub && type !== S_LAZY_SYMBOL_POINTERS && type !== S_NON_LAZY_SYMBOL_POINTERS) {
        continue;
      }
      const entry = isStub ? sec.reserved2 : ptrSize;
      if (entry === 0) continue;
      const n = Math.floor(sec.size / entry);
      for (let j = 0; j < n && sec.reserved1 + j < count; j++) {
        const symIndex = r.u32(ind.off + (sec.reserved1 + j) * 4);
        if (symIndex & 0xc0000000) continue; // INDIRECT_SYMBOL_LOCAL / ABS
        const sym = nlists[symIndex];
        if (!sym || !sym.name || (sym.type & 0x0e) !== 0) continue; // defined locally
        const imp = impFor(sym.name, (sym.desc >> 8) & 0xff);
        const at = sec.addr + j * entry;
        if (isStub) imp.stub ??= at;
        else if (type === S_LAZY_SYMBOL_POINTERS || imp.slot === undefined) imp.slot = at;
      }
    }
  });

  // dyld info binds.
  const dyldSegs: DyldSegment[] = m.segments.map((s) => ({
    vmaddr: s.vmaddr,
    fileoff: s.fileoff,
    filesize: s.filesize,
  }));
  const relocations: Relocation[] = [];
  const addBind = (b: DyldBind) => {
    if (!b.name) return;
    const imp = impFor(b.name, b.ordinal);
    imp.slot ??= b.address;
    relocations.push({ address: b.address, symbol: b.name, type: 0 });
  };
  if (m.dyldInfo) {
    const d = m.dyldInfo;
    for (
      const [blob, lazy, what] of [[d.bind, false, "bind"], [d.weakBind, false, "weak bind"], [
        d.lazyBind,
        true,
        "lazy bind",
      ]] as const
    ) {
      if (blob.size === 0) continue;
      const binds: DyldBind[] = [];
      optionalPart(
        warnings,
        what,
        undefined,
        () => readBindOpcodes(r, blob.off, blob.size, lazy, dyldSegs, ptrSize, binds),
      );
      binds.forEach(addBind);
    }
  }

  // Chained fixups.
  let chained: ChainedFixups | undefined;
  if (m.chainedFixups && m.chainedFixups.size > 0) {
    const cf = m.chainedFixups;
    chained = optionalPart(
      warnings,
      "chained fixups",
      undefined,
      () => readChainedFixups(r, cf.off, cf.size, dyldSegs, imageBase),
    );
    if (chained) {
      for (const b of chained.binds) {
        const imp = chained.imports[b.import];
        if (imp) addBind({ address: b.address, name: imp.name, ordinal: imp.ordinal });
      }
      for (const rb of chained.rebases) {
        relocations.push({ address: rb.address, target: rb.target, type: 1 });
      }
    }
  }
  const rebaseTarget = new Map<number, number>();
  if (chained) { for (const rb of chained.rebases) rebaseTarget.set(rb.address, rb.target); }

  const imports: ImportEntry[] = [];
  for (const i of imps.values()) {
    const address = i.stub ?? i.slot;
    if (address === undefined) continue;
    const e: ImportEntry = { name: i.name, address };
    if (i.slot !== undefined) e.slot = i.slot;
    if (i.library !== undefined) e.library = i.library;
    imports.push(e);
  }
  imports.sort((a, b) => a.address - b.address);

  // Exports.
  const exports: ExportEntry[] = [];
  const trie = m.exportsTrie ??
    (m.dyldInfo && m.dyldInfo.export.size > 0 ? m.dyldInfo.export : undefined);
  if (trie && trie.size > 0) {
    for (
      const e of optionalPart(
        warnings,
        "export trie",
        [],
        () => readExportTrie(r, trie.off, trie.size),
      )
    ) {
      if (e.reexport) {
        exports.push({
          name: e.name,
          address: 0,
          forwarder: `${libraryName(m, e.reexport.ordinal) ?? "?"}:${e.reexport.name || e.name}`,
        });
      } else {
        exports.push({
          name: e.name,
          address: (e.flags & 3) === 2 ? e.offset : imageBase + e.offset,
        });
      }
    }
  }

  // Entry points.
  const entryPoints: EntryPoint[] = [];
  let entry: number | undefined;
  if (m.mainEntryOff !== undefined && text) {
    entry = text.vmaddr + (m.mainEntryOff - text.fileoff);
    entryPoints.push({ name: "main", address: entry, kind: "main" });
  } else if (m.threadPc !== undefined && m.threadPc !== 0) {
    entry = m.threadPc;
    entryPoints.push({ name: "entry", address: entry, kind: "entry" });
  }
  let thumb: boolean | undefined;
  if (m.arch === "arm" && entry !== undefined) {
    thumb = entry % 2 === 1;
    entry -= entry % 2;
    entryPoints[0]!.address = entry;
  }
  optionalPart(warnings, "initializers", undefined, () => {
    for (const sec of flatSections) {
      const type = sec.flags & 0xff;
      const off = vaToOff(sec.addr);
      if (off === undefined) continue;
      if (type === S_MOD_INIT_FUNC_POINTERS || type === S_MOD_TERM_FUNC_POINTERS) {
        const n = Math.min(Math.floor(sec.size / ptrSize), 10_000);
        for (let i = 0; i < n; i++) {
          const slot = sec.addr + i * ptrSize;
          const v = rebaseTarget.get(slot) ?? r.word(off + i * ptrSize, ptrSize);
          if (v === 0 || !Number.isSafeInteger(v)) continue;
          const init = type === S_MOD_INIT_FUNC_POINTERS;
          entryPoints.push({
            name: `${init ? "mod_init" : "mod_term"}_${i}`,
            address: v,
            kind: init ? "init" : "fini",
          });
        }
      } else if (type === S_INIT_FUNC_OFFSETS) {
        const n = Math.min(Math.floor(sec.size / 4), 10_000);
        for (let i = 0; i < n; i++) {
          entryPoints.push({
            name: `init_offset_${i}`,
            address: imageBase + r.u32(off + i * 4),
            kind: "init",
          });
        }
      }
    }
  });

  // Function hints.
  const functionHints: FunctionHint[] = [];
  if (m.functionStarts && m.functionStarts.size > 0) {
    const fs = m.functionStarts;
    optionalPart(warnings, "function starts", undefined, () => {
      const c = new Cursor(r, fs.off, fs.off + fs.size);
      let addr = imageBase;
      while (!c.done) {
        const delta = c.uleb();
        if (delta === 0) break;
        addr += delta;
        if (m.arch === "arm") armModes.push({ addr: addr - (addr % 2), thumb: addr % 2 === 1 });
        functionHints.push({
          start: addr - (m.arch === "arm" ? addr % 2 : 0),
          source: "function_starts",
        });
      }
    });
  }
  const eh = flatSections.find((s) => s.sectname === "__eh_frame" && s.size > 0);
  if (eh) {
    functionHints.push(
      ...parseEhFrame(r, {
        fileOffset: eh.offset,
        addr: eh.addr,
        size: eh.size,
        ptrSize: ptrSize,
      }, warnings),
    );
  }

  const info: Record<string, unknown> = {
    cputype: m.cputype,
    cpusubtype: m.cpusubtype,
    filetype: FILETYPES[m.filetype] ?? String(m.filetype),
    flags: `0x${m.flags.toString(16)}`,
    load_commands: m.commandNames,
    dylibs: m.dylibs,
    ...m.facts,
    ...extraInfo,
    warnings,
  };
  if (m.uuid) info.uuid = m.uuid;
  if (m.codeSignature) {
    info.code_signature = { offset: sliceOffset + m.codeSignature.off, size: m.codeSignature.size };
  }
  if (chained) info.chained_pointer_formats = chained.pointerFormats;

  return makeImage(file, {
    format: "macho",
    arch: m.arch,
    bits: m.bits,
    endian: r.little ? "little" : "big",
    ...(entry !== undefined ? { entry } : {}),
    ...(thumb !== undefined ? { thumb } : {}),
    ...(m.arch === "arm"
      ? {
        isThumb: thumbOracle(armModes, [], thumb ?? false),
        ...(armModes.length > 0 ? { armModesKnown: true } : {}),
      }
      : {}),
    imageBase,
    fileSize: file.length,
    segments,
    mapping,
    // A dSYM's __DWARF is mapped but only ever read on request (read_bytes): never held.
    onDemand: (s) => s.name === "__DWARF",
    sections,
    symbols: symbols.sort((a, b) => a.address - b.address),
    imports,
    exports,
    entryPoints,
    functionHints,
    relocations,
    info,
  });
}

const FILETYPES: Record<number, string> = {
  1: "object",
  2: "execute",
  3: "fvmlib",
  4: "core",
  5: "preload",
  6: "dylib",
  7: "dylinker",
  8: "bundle",
  9: "dylib_stub",
  10: "dsym",
  11: "kext_bundle",
  12: "fileset",
};
