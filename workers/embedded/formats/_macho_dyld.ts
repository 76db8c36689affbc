/**
 * dyld's compressed tables in Mach-O `__LINKEDIT`: bind opcode streams, the export trie and
 * chained fixups. Each is walked with hard caps, so a hostile table ends in a warning, not a hang.
 */

import { Cursor } from "./_cursor.ts";
import { type ByteReader, malformed } from "./_reader.ts";

/** A segment as dyld numbers them (load-command order). */
export interface DyldSegment {
  vmaddr: number;
  fileoff: number;
  filesize: number;
}

/** A bound pointer: `address` receives the address of `name` from library `ordinal`. */
export interface DyldBind {
  address: number;
  name: string;
  /** 1-based dylib index; 0 self, -1 main executable, -2 flat lookup, -3 weak lookup. */
  ordinal: number;
}

const MAX_BINDS = 1_000_000;
const MAX_OPCODES = 10_000_000;

/** Decodes a bind (or lazy-bind) opcode stream. */
export function readBindOpcodes(
  r: ByteReader,
  off: number,
  size: number,
  lazy: boolean,
  segs: DyldSegment[],
  ptrSize: number,
  out: DyldBind[],
): void {
  const c = new Cursor(r, off, off + size);
  let ordinal = 0;
  let name = "";
  let seg = 0;
  let segOff = 0;
  const bind = () => {
    const s = segs[seg];
    if (!s) throw malformed(`Bind to segment ${seg}, which does not exist`, c.pos);
    if (out.length >= MAX_BINDS) throw malformed("Too many binds", c.pos);
    out.push({ address: s.vmaddr + segOff, name, ordinal });
  };
  for (let n = 0; !c.done && n < MAX_OPCODES; n++) {
    const byte = c.u8();
    const op = byte & 0xf0;
    const imm = byte & 0x0f;
    switch (op) {
      case 0x00: // DONE
        if (!lazy) return;
        break;
      case 0x10:
        ordinal = imm;
        break;
      case 0x20:
        ordinal = c.uleb();
        break;
      case 0x30:
        ordinal = imm === 0 ? 0 : (imm | 0xf0) - 0x100;
        break;
      case 0x40:
        name = c.cstring();
        break;
      case 0x50: // SET_TYPE
        break;
      case 0x60:
        c.sleb();
        break;
      case 0x70:
        seg = imm;
        segOff = c.ulebWrapping();
        break;
      case 0x80:
        segOff += c.ulebWrapping();
        break;
      case 0x90:
        bind();
        segOff += ptrSize;
        break;
      case 0xa0:
        bind();
        segOff += c.ulebWrapping() + ptrSize;
        break;
      case 0xb0:
        bind();
        segOff += imm * ptrSize + ptrSize;
        break;
      case 0xc0: {
        const count = c.uleb();
        const skip = c.ulebWrapping();
        if (count > MAX_BINDS) throw malformed(`Bind repeat count ${count} is too large`, c.pos);
        for (let i = 0; i < count; i++) {
          bind();
          segOff += skip + ptrSize;
        }
        break;
      }
      default:
        throw malformed(`Unsupported bind opcode 0x${byte.toString(16)}`, c.pos - 1);
    }
  }
}

/** One exported symbol from the export trie. */
export interface TrieExport {
  name: string;
  flags: number;
  /** Offset from the image base (or absolute for EXPORT_SYMBOL_FLAGS_KIND_ABSOLUTE). */
  offset: number;
  /** For re-exports: the library ordinal and the name there ("" = same name). */
  reexport?: { ordinal: number; name: string };
}

const MAX_TRIE_NODES = 1_000_000;
const MAX_TRIE_DEPTH = 256;

/** Walks the export trie at [off, off+size) depth-first, visiting each node at most once. */
export function readExportTrie(r: ByteReader, off: number, size: number): TrieExport[] {
  const out: TrieExport[] = [];
  const end = Math.min(off + size, r.length);
  const visited = new Set<number>();
  const stack: { node: number; prefix: string; depth: number }[] = [{
    node: 0,
    prefix: "",
    depth: 0,
  }];
  while (stack.length > 0) {
    const { node, prefix, depth } = stack.pop()!;
    if (visited.has(node)) throw malformed("Export trie has a cycle", off + node);
    if (visited.size >= MAX_TRIE_NODES || depth > MAX_TRIE_DEPTH) {
      throw malformed("Export trie is too large or too deep", off + node);
    }
    visited.add(node);
    const c = new Cursor(r, off + node, end);
    const termSize = c.uleb();
    const childrenAt = c.pos + termSize;
    if (termSize > 0) {
      const flags = c.uleb();
      if (flags & 0x08) {
        const ordinal = c.uleb();
        out.push({ name: prefix, flags, offset: 0, reexport: { ordinal, name: c.cstring() } });
      } else {
        const offset = c.uleb();
        if (flags & 0x10) c.uleb(); // resolver
        out.push({ name: prefix, flags, offset });
      }
    }
    c.pos = childrenAt;
    const nChildren = c.u8();
    for (let i = 0; i < nChildren; i++) {
      const edge = c.cstring();
      const child = c.uleb();
      if (child >= end - off) throw malformed("Export trie child is out of range", c.pos);
      stack.push({ node: child, prefix: prefix + edge, depth: depth + 1 });
    }
  }
  return out;
}

/** One import of the chained-fixups import table. */
export interface ChainedImport {
  name: string;
  ordinal: number;
}

/** What chained fixups give: binds (slot → import) and rebases (slot → target). */
export interface ChainedFixups {
  imports: ChainedImport[];
  binds: { address: number; import: number }[];
  rebases: { address: number; target: number }[];
  pointerFormats: number[];
}

const MAX_FIXUPS = 5_000_000;

/**
 * Decodes LC_DYLD_CHAINED_FIXUPS at [off, off+size): the import table and every chain.
 * `segs` are the segments in load-command order, `imageBase` the mach header's address.
 */
export function readChainedFixups(
  r: ByteReader,
  off: number,
  size: number,
  segs: DyldSegment[],
  imageBase: number,
): ChainedFixups {
  const res: ChainedFixups = { imports: [], binds: [], rebases: [], pointerFormats: [] };
  r.check(off, Math.min(size, 28), "Chained fixups header runs past the end of the file");
  const end = Math.min(off + size, r.length);
  const startsOff = r.u32(off + 4);
  const importsOff = r.u32(off + 8);
  const symbolsOff = r.u32(off + 12);
  const importsCount = r.u32(off + 16);
  const importsFormat = r.u32(off + 20);
  const entSize = importsFormat === 1 ? 4 : importsFormat === 2 ? 8 : importsFormat === 3 ? 16 : 0;
  if (entSize === 0) throw malformed(`Unknown chained import format ${importsFormat}`, off + 20);
  const n = Math.min(importsCount, Math.floor(Math.max(0, end - off - importsOff) / entSize));
  for (let i = 0; i < n; i++) {
    const e = off + importsOff + i * entSize;
    let ordinal: number, nameOff: number;
    if (importsFormat === 3) {
      const lo = r.u32(e);
      ordinal = (lo & 0xffff) >= 0xfff0 ? (lo & 0xffff) - 0x10000 : lo & 0xffff;
      nameOff = r.u32(e + 4);
    } else {
      const v = r.u32(e);
      ordinal = (v & 0xff) >= 0xf0 ? (v & 0xff) - 0x100 : v & 0xff;
      nameOff = v >>> 9;
    }
    res.imports.push({ name: r.cstring(off + symbolsOff + nameOff, end), ordinal });
  }

  const starts = off + startsOff;
  const segCount = Math.min(r.u32(starts), 256);
  let total = 0;
  for (let si = 0; si < segCount; si++) {
    const infoOff = r.u32(starts + 4 + si * 4);
    if (infoOff === 0) continue;
    const seg = segs[si];
    if (!seg) continue;
    const s = starts + infoOff;
    const pageSize = r.u16(s + 4);
    const format = r.u16(s + 6);
    const segOffset = r.u64(s + 8);
    const pageCount = r.u16(s + 20);
    if (!res.pointerFormats.includes(format)) res.pointerFormats.push(format);
    const stride = format === 1 || format === 9 || format === 12 ? 8 : 4;
    const is32 = format === 3;
    if (![1, 2, 3, 6, 9, 12].includes(format)) {
      throw malformed(`Unsupported chained pointer format ${format}`, s + 6);
    }
    if (pageSize === 0) continue;
    for (let p = 0; p < pageCount; p++) {
      const start = r.u16(s + 22 + p * 2);
      if (start === 0xffff || (is32 && (start & 0x8000))) continue;
      let pageOff = start;
      for (let steps = 0; steps <= pageSize / stride; steps++) {
        if (++total > MAX_FIXUPS) throw malformed("Too many chained fixups", s);
        const address = imageBase + segOffset + p * pageSize + pageOff;
        const fo = seg.fileoff + (address - seg.vmaddr);
        let next: number;
        if (is32) {
          const v = r.u32(fo);
          next = (v >>> 26) & 0x1f;
          if (v >>> 31) res.binds.push({ address, import: v & 0xfffff });
          else res.rebases.push({ address, target: v & 0x3ffffff });
        } else {
          const lo = r.u32(fo + (r.little ? 0 : 4));
          const hi = r.u32(fo + (r.little ? 4 : 0));
          if (format === 2 || format === 6) {
            next = (hi >>> 19) & 0xfff;
            if (hi >>> 31) res.binds.push({ address, import: lo & 0xffffff });
            else {
              const t = lo + (hi & 0xf) * 0x1_0000_0000;
              res.rebases.push({ address, target: format === 6 ? imageBase + t : t });
            }
          } else {
            next = (hi >>> 19) & 0x7ff;
            const auth = hi >>> 31;
            if ((hi >>> 30) & 1) {
              res.binds.push({ address, import: format === 12 ? lo & 0xffffff : lo & 0xffff });
            } else if (auth) res.rebases.push({ address, target: imageBase + lo });
            else {
              const t = lo + (hi & 0x7ff) * 0x1_0000_0000;
              res.rebases.push({ address, target: format === 1 ? t : imageBase + t });
            }
          }
        }
        if (next === 0) break;
        pageOff += next * stride;
      }
    }
  }
  return res;
}
