/**
 * Per-function diffing features, computed the same way whichever backend supplied the
 * instructions, so two databases on different engines can be compared. Pure: plain data in,
 * plain data out.
 */
import { Hasher, hashText } from "./hash.ts";
import { splitOperands } from "../split_operands.ts";

/** One instruction as a backend lists it. */
export interface FeatureInsn {
  address: number;
  bytes: Uint8Array;
  mnemonic: string;
  operands: string;
  /** Direct branch or call target. */
  target?: number | undefined;
  /** Data address the instruction references. */
  ref?: number | undefined;
}

/** Everything a backend tells about one function, before it is reduced to features. */
export interface FeatureSource {
  name: string;
  start: number;
  /** Exclusive end of the part holding `start` (references inside it are not masked). */
  end: number;
  size: number;
  insns: FeatureInsn[];
  blocks: { start: number; end: number }[];
  /** Edges between the function's own blocks. */
  edges: { from: number; to: number }[];
  /** Starts of the functions it calls, in order of first call. */
  callees: number[];
  strings: string[];
  imports: string[];
}

/** The features the matcher compares. */
export interface FunctionFeatures {
  name: string;
  start: number;
  size: number;
  instructions: number;
  blocks: number;
  edges: number;
  /** Back edges (an edge to a block at or before its source). */
  loops: number;
  /** Hash of the instruction bytes with addresses of other code and data masked. */
  bytes_hash: string;
  /** Hash of the sequence of mnemonics with operand kinds. */
  mnem_hash: string;
  /** Hash of the multiset of mnemonics (order-free: survives instruction scheduling). */
  mnem_set_hash: string;
  /** Small-primes product over the blocks' (in-degree, out-degree) classes, with the counts. */
  cfg_sig: string;
  /** Mnemonics counted into {@link HISTOGRAM_BUCKETS} buckets, for fuzzy similarity. */
  histogram: number[];
  strings: string[];
  imports: string[];
  /** Immediate values that are not addresses, sorted. */
  constants: number[];
  /** Starts of called functions, in order of first call. */
  callees: number[];
}

/** Buckets of the mnemonic histogram. */
export const HISTOGRAM_BUCKETS = 32;
const MAX_LIST = 32;
const MAX_STRING = 80;
// Small primes, one per (in-degree, out-degree) class of a block (each capped at 3).
const PRIMES = [2n, 3n, 5n, 7n, 11n, 13n, 17n, 19n, 23n, 29n, 31n, 37n, 41n, 43n, 47n, 53n];
const MASK64 = (1n << 64n) - 1n;

/** Reduces what a backend listed about a function to its features. */
export function computeFeatures(
  src: FeatureSource,
  isMapped: (address: number) => boolean,
): FunctionFeatures {
  const bytes = new Hasher();
  const mnem = new Hasher();
  const histogram = new Array<number>(HISTOGRAM_BUCKETS).fill(0);
  const mnemonics: string[] = [];
  const constants = new Set<number>();
  const outside = (v: number | undefined): v is number =>
    v !== undefined && (v < src.start || v >= src.end);
  for (const insn of src.insns) {
    const m = insn.mnemonic.toLowerCase();
    mnemonics.push(m);
    histogram[bucketOf(m)]! += 1;
    const ops = splitOperands(insn.operands);
    const imms = immediates(ops);
    const external: number[] = [];
    if (outside(insn.target)) external.push(insn.target);
    if (outside(insn.ref)) external.push(insn.ref);
    for (const v of imms) {
      if (v >= 0x100 && v !== insn.target && v !== insn.ref) {
        if (isMapped(v)) {
          if (outside(v)) external.push(v);
        } else constants.add(v);
      }
    }
    bytes.add(maskAddresses(insn, external));
    mnem.text(m);
    mnem.text(insn.target !== undefined ? " a;" : ` ${operandKinds(ops)};`);
  }
  const cfg = cfgShape(src.blocks, src.edges);
  return {
    name: src.name,
    start: src.start,
    size: src.size,
    instructions: src.insns.length,
    blocks: src.blocks.length,
    edges: cfg.edges,
    loops: cfg.loops,
    bytes_hash: bytes.digest(),
    mnem_hash: mnem.digest(),
    mnem_set_hash: hashText(mnemonics.sort().join(" ")),
    cfg_sig: cfg.signature,
    histogram,
    strings: [...new Set(src.strings.map((s) => s.slice(0, MAX_STRING)))].sort().slice(0, MAX_LIST),
    imports: [...new Set(src.imports)].sort().slice(0, MAX_LIST),
    constants: [...constants].sort((a, b) => a - b).slice(0, MAX_LIST),
    callees: src.callees,
  };
}

/**
 * The instruction's bytes with every encoding of an address outside the function zeroed: the
 * 32-bit relative form (x86 rel32 and RIP-relative displacements) and the 32/64-bit absolute
 * form. Instructions whose address field cannot be found (fixed-width ISAs pack it into opcode
 * bits) keep only their length and mnemonic.
 */
export function maskAddresses(insn: FeatureInsn, external: number[]): Uint8Array {
  if (external.length === 0) return insn.bytes;
  const out = insn.bytes.slice();
  const next = insn.address + out.length;
  let found = false;
  for (const v of external) {
    for (const [value, width] of [[v - next, 4], [v, 4], [v, 8]] as const) {
      if (zeroLittleEndian(out, value, width)) found = true;
    }
  }
  if (found) return out;
  return new TextEncoder().encode(`${out.length}:${insn.mnemonic.toLowerCase()}`);
}

/** A mnemonic's histogram bucket (a string hash; cheap, and the same on every backend). */
function bucketOf(m: string): number {
  let h = 5381;
  for (let i = 0; i < m.length; i++) h = (Math.imul(h, 33) + m.charCodeAt(i)) | 0;
  return (h >>> 0) % HISTOGRAM_BUCKETS;
}

function zeroLittleEndian(bytes: Uint8Array, value: number, width: 4 | 8): boolean {
  if (bytes.length < width) return false;
  const enc = new Uint8Array(8);
  // Two's complement, little-endian: the low 32 bits, then (for 8 bytes) the high 32.
  let lo = value | 0;
  let hi = Math.floor(value / 0x1_0000_0000) | 0;
  for (let i = 0; i < 4; i++, lo >>= 8) enc[i] = lo & 0xff;
  for (let i = 4; i < 8; i++, hi >>= 8) enc[i] = hi & 0xff;
  let hit = false;
  for (let at = bytes.length - width; at >= 1; at--) {
    let same = true;
    for (let i = 0; i < width && same; i++) same = bytes[at + i] === enc[i];
    if (same) {
      bytes.fill(0, at, at + width);
      hit = true;
      break;
    }
  }
  return hit;
}

/** Operands split at top-level commas. */
const IMMEDIATE = /^[#$]?(-?(?:0x[0-9a-f]+|\d+))$/i;

/** r(egister), m(emory) or i(mmediate) per operand: what syntax differences keep. */
function operandKinds(ops: string[]): string {
  return ops.map((op) => {
    if (/[[(]/.test(op) || /\bptr\b/i.test(op)) return "m";
    return IMMEDIATE.test(op) ? "i" : "r";
  }).join("");
}

/** Immediate operand values (outside memory operands). */
function immediates(ops: string[]): number[] {
  const out: number[] = [];
  for (const op of ops) {
    const m = IMMEDIATE.exec(op);
    if (!m) continue;
    const v = Number(m[1]!.startsWith("-") ? -Number(m[1]!.slice(1)) : m[1]);
    if (Number.isSafeInteger(v)) out.push(v);
  }
  return out;
}

function cfgShape(
  blocks: { start: number; end: number }[],
  edges: { from: number; to: number }[],
): { edges: number; loops: number; signature: string } {
  const inDeg = new Map<number, number>();
  const outDeg = new Map<number, number>();
  const starts = new Set(blocks.map((b) => b.start));
  const seen = new Set<string>();
  let loops = 0;
  for (const e of edges) {
    const key = `${e.from}>${e.to}`;
    if (!starts.has(e.from) || !starts.has(e.to) || seen.has(key)) continue;
    seen.add(key);
    outDeg.set(e.from, (outDeg.get(e.from) ?? 0) + 1);
    inDeg.set(e.to, (inDeg.get(e.to) ?? 0) + 1);
    if (e.to <= e.from) loops++;
  }
  let product = 1n;
  for (const b of blocks) {
    const cls = Math.min(inDeg.get(b.start) ?? 0, 3) * 4 + Math.min(outDeg.get(b.start) ?? 0, 3);
    product = (product * PRIMES[cls]!) & MASK64;
  }
  return {
    edges: seen.size,
    loops,
    signature: `${blocks.length}.${seen.size}.${loops}.${product.toString(16)}`,
  };
}
