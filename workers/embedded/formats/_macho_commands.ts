/**
 * The Mach-O header and load commands, decoded into one record. The tables they point to
 * (symbols, dyld info, …) are read by `macho.ts`.
 */

import { ByteReader, hex, malformed } from "./_reader.ts";
import type { ByteSource } from "./_source.ts";
import type { Arch } from "./image.ts";

/** A section header as stored. */
export interface MachoSection {
  segname: string;
  sectname: string;
  addr: number;
  size: number;
  offset: number;
  flags: number;
  reserved1: number;
  reserved2: number;
}

/** A segment load command as stored, with its sections. */
export interface MachoSegment {
  name: string;
  vmaddr: number;
  vmsize: number;
  fileoff: number;
  filesize: number;
  maxprot: number;
  initprot: number;
  sections: MachoSection[];
}

/** A (file offset, size) pair from a linkedit_data_command or similar. */
export interface Blob {
  off: number;
  size: number;
}

/** Everything the load commands say. */
export interface MachoCommands {
  r: ByteReader;
  is64: boolean;
  arch: Arch;
  bits: 32 | 64;
  cputype: number;
  cpusubtype: number;
  filetype: number;
  flags: number;
  commandNames: string[];
  segments: MachoSegment[];
  dylibs: string[];
  symtab?: { symoff: number; nsyms: number; stroff: number; strsize: number };
  indirect?: Blob;
  dyldInfo?: { rebase: Blob; bind: Blob; weakBind: Blob; lazyBind: Blob; export: Blob };
  exportsTrie?: Blob;
  chainedFixups?: Blob;
  functionStarts?: Blob;
  codeSignature?: Blob;
  mainEntryOff?: number;
  threadPc?: number;
  uuid?: string;
  facts: Record<string, unknown>;
}

const CMD_NAMES: Record<number, string> = {
  0x1: "LC_SEGMENT",
  0x2: "LC_SYMTAB",
  0x4: "LC_THREAD",
  0x5: "LC_UNIXTHREAD",
  0xb: "LC_DYSYMTAB",
  0xc: "LC_LOAD_DYLIB",
  0xd: "LC_ID_DYLIB",
  0xe: "LC_LOAD_DYLINKER",
  0xf: "LC_ID_DYLINKER",
  0x19: "LC_SEGMENT_64",
  0x1b: "LC_UUID",
  0x1d: "LC_CODE_SIGNATURE",
  0x20: "LC_LAZY_LOAD_DYLIB",
  0x21: "LC_ENCRYPTION_INFO",
  0x22: "LC_DYLD_INFO",
  0x24: "LC_VERSION_MIN_MACOSX",
  0x25: "LC_VERSION_MIN_IPHONEOS",
  0x26: "LC_FUNCTION_STARTS",
  0x29: "LC_DATA_IN_CODE",
  0x2a: "LC_SOURCE_VERSION",
  0x2c: "LC_ENCRYPTION_INFO_64",
  0x2f: "LC_VERSION_MIN_TVOS",
  0x30: "LC_VERSION_MIN_WATCHOS",
  0x32: "LC_BUILD_VERSION",
  0x80000018: "LC_LOAD_WEAK_DYLIB",
  0x8000001c: "LC_RPATH",
  0x8000001f: "LC_REEXPORT_DYLIB",
  0x80000022: "LC_DYLD_INFO_ONLY",
  0x80000023: "LC_LOAD_UPWARD_DYLIB",
  0x80000028: "LC_MAIN",
  0x80000033: "LC_DYLD_EXPORTS_TRIE",
  0x80000034: "LC_DYLD_CHAINED_FIXUPS",
};

const DYLIB_CMDS = new Set([0xc, 0x20, 0x80000018, 0x8000001f, 0x80000023]);
const PLATFORMS = [
  "",
  "macos",
  "ios",
  "tvos",
  "watchos",
  "bridgeos",
  "maccatalyst",
  "iossimulator",
  "tvossimulator",
  "watchossimulator",
  "driverkit",
];
const MAX_COMMANDS = 10_000;

/** Mach-O cputype → architecture. */
export function machoArch(cputype: number): { arch: Arch; bits: 32 | 64 } | undefined {
  switch (cputype) {
    case 7:
      return { arch: "x86", bits: 32 };
    case 0x01000007:
      return { arch: "x86_64", bits: 64 };
    case 12:
      return { arch: "arm", bits: 32 };
    case 0x0100000c:
      return { arch: "aarch64", bits: 64 };
    case 0x0200000c:
      return { arch: "aarch64", bits: 32 };
    case 18:
      return { arch: "ppc", bits: 32 };
    case 0x01000012:
      return { arch: "ppc64", bits: 64 };
    default:
      return undefined;
  }
}

function version(v: number): string {
  return `${v >>> 16}.${(v >>> 8) & 0xff}.${v & 0xff}`;
}

/** Parses the header and load commands of a (thin) Mach-O in `source`. */
export function parseMachoCommands(source: ByteSource, warnings: string[]): MachoCommands {
  if (source.length < 28) throw malformed("Mach-O header is truncated", 0);
  const le = new ByteReader(source, true).u32(0);
  const little = le === 0xfeedface || le === 0xfeedfacf;
  const is64 = le === 0xfeedfacf || le === 0xcffaedfe;
  if (!little && le !== 0xcefaedfe && le !== 0xcffaedfe) throw malformed("Not a Mach-O file", 0);
  const r = new ByteReader(source, little);
  const hdrSize = is64 ? 32 : 28;
  r.check(0, hdrSize, "Mach-O header is truncated");
  const cputype = r.u32(4);
  const a = machoArch(cputype);
  if (!a) {
    throw malformed(`Mach-O cputype ${hex(cputype)} is not supported by the embedded engine`, 4);
  }
  const ncmds = r.u32(16);
  const sizeofcmds = r.u32(20);
  const m: MachoCommands = {
    r,
    is64,
    arch: a.arch,
    bits: a.bits,
    cputype,
    cpusubtype: r.u32(8) & 0x00ffffff,
    filetype: r.u32(12),
    flags: r.u32(24),
    commandNames: [],
    segments: [],
    dylibs: [],
    facts: {},
  };
  const cmdsEnd = Math.min(hdrSize + sizeofcmds, r.length);
  if (hdrSize + sizeofcmds > r.length) warnings.push("load commands: run past the end of the file");
  const addr = (o: number, what: string) => is64 ? r.addr64(o, what) : r.u32(o);
  const rpaths: string[] = [];
  let p = hdrSize;
  for (let i = 0; i < Math.min(ncmds, MAX_COMMANDS); i++) {
    if (p + 8 > cmdsEnd) {
      warnings.push(`load commands: ${ncmds - i} of ${ncmds} missing`);
      break;
    }
    const cmd = r.u32(p);
    const size = r.u32(p + 4);
    if (size < 8 || p + size > cmdsEnd) {
      warnings.push(`load commands: command ${i} at ${hex(p)} has bad size ${size}; stopped`);
      break;
    }
    m.commandNames.push(CMD_NAMES[cmd] ?? hex(cmd));
    const str = (rel: number) => r.cstring(p + r.u32(p + rel), p + size, 1024);
    const blob = (): Blob => ({ off: r.u32(p + 8), size: r.u32(p + 12) });
    if (cmd === 0x19 || cmd === 0x1) {
      const w = is64 ? 8 : 4;
      const base = p + 24;
      const seg: MachoSegment = {
        name: r.fixedString(p + 8, 16),
        vmaddr: addr(base, "Segment address"),
        vmsize: addr(base + w, "Segment size"),
        fileoff: is64 ? r.u64(base + 2 * w) : r.u32(base + 2 * w),
        filesize: is64 ? r.u64(base + 3 * w) : r.u32(base + 3 * w),
        maxprot: r.u32(base + 4 * w),
        initprot: r.u32(base + 4 * w + 4),
        sections: [],
      };
      if (!Number.isSafeInteger(seg.vmaddr + seg.vmsize)) {
        throw malformed(`Segment ${seg.name} reaches at or above 2^53 (known limitation)`, p);
      }
      const nsects = r.u32(base + 4 * w + 8);
      const secSize = is64 ? 80 : 68;
      const first = base + 4 * w + 16;
      const fit = Math.floor((p + size - first) / secSize);
      for (let s = 0; s < Math.min(nsects, fit); s++) {
        const o = first + s * secSize;
        const q = o + 32;
        const sec: MachoSection = {
          sectname: r.fixedString(o, 16),
          segname: r.fixedString(o + 16, 16),
          addr: addr(q, "Section address"),
          size: addr(q + w, "Section size"),
          offset: r.u32(q + 2 * w),
          flags: r.u32(q + 2 * w + 16),
          reserved1: r.u32(q + 2 * w + 20),
          reserved2: r.u32(q + 2 * w + 24),
        };
        seg.sections.push(sec);
      }
      m.segments.push(seg);
    } else if (cmd === 0x2) {
      m.symtab = {
        symoff: r.u32(p + 8),
        nsyms: r.u32(p + 12),
        stroff: r.u32(p + 16),
        strsize: r.u32(p + 20),
      };
    } else if (cmd === 0xb) {
      m.indirect = { off: r.u32(p + 56), size: r.u32(p + 60) * 4 };
    } else if (DYLIB_CMDS.has(cmd)) {
      m.dylibs.push(str(8));
    } else if (cmd === 0xd) {
      m.facts.install_name = str(8);
    } else if (cmd === 0xe) {
      m.facts.interpreter = str(8);
    } else if (cmd === 0x8000001c) {
      rpaths.push(str(8));
    } else if (cmd === 0x80000028) {
      m.mainEntryOff = r.u64(p + 8);
    } else if (cmd === 0x5 || cmd === 0x4) {
      const pc = threadPc(r, p, size, cputype);
      if (pc !== undefined) m.threadPc = pc;
    } else if (cmd === 0x1b) {
      let u = "";
      for (let k = 0; k < 16; k++) u += r.u8(p + 8 + k).toString(16).padStart(2, "0");
      m.uuid = `${u.slice(0, 8)}-${u.slice(8, 12)}-${u.slice(12, 16)}-${u.slice(16, 20)}-${
        u.slice(20)
      }`.toUpperCase();
    } else if (cmd === 0x1d) {
      m.codeSignature = blob();
    } else if (cmd === 0x26) {
      m.functionStarts = blob();
    } else if (cmd === 0x80000033) {
      m.exportsTrie = blob();
    } else if (cmd === 0x80000034) {
      m.chainedFixups = blob();
    } else if (cmd === 0x22 || cmd === 0x80000022) {
      const b = (o: number): Blob => ({ off: r.u32(p + o), size: r.u32(p + o + 4) });
      m.dyldInfo = { rebase: b(8), bind: b(16), weakBind: b(24), lazyBind: b(32), export: b(40) };
    } else if (cmd === 0x32) {
      m.facts.platform = PLATFORMS[r.u32(p + 8)] ?? String(r.u32(p + 8));
      m.facts.min_os = version(r.u32(p + 12));
      m.facts.sdk = version(r.u32(p + 16));
    } else if (cmd === 0x24 || cmd === 0x25 || cmd === 0x2f || cmd === 0x30) {
      m.facts.min_os = version(r.u32(p + 8));
      m.facts.sdk = version(r.u32(p + 12));
    } else if (cmd === 0x21 || cmd === 0x2c) {
      m.facts.encrypted = r.u32(p + 16) !== 0;
    }
    p += size;
  }
  if (rpaths.length) m.facts.rpaths = rpaths;
  return m;
}

/** Program counter from an LC_UNIXTHREAD/LC_THREAD state for the known flavors. */
function threadPc(r: ByteReader, p: number, size: number, cputype: number): number | undefined {
  const flavor = r.u32(p + 8);
  const state = p + 16;
  const at = (
    o: number,
    w: number,
  ) => (state + o + w <= p + size ? (w === 8 ? r.u64(state + o) : r.u32(state + o)) : undefined);
  if (cputype === 0x01000007 && flavor === 4) return at(16 * 8, 8); // x86_THREAD_STATE64: rip
  if (cputype === 7 && flavor === 1) return at(10 * 4, 4); // i386: eip
  if (cputype === 0x0100000c && flavor === 6) return at(32 * 8, 8); // ARM_THREAD_STATE64: pc
  if (cputype === 12 && flavor === 1) return at(15 * 4, 4); // ARM: r15
  if ((cputype === 18 || cputype === 0x01000012) && flavor === 1) {
    return at(0, cputype === 18 ? 4 : 8); // srr0
  }
  return undefined;
}
