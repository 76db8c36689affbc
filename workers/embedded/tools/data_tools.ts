/** Embedded handlers: reading bytes and typed data. */
import { RemcpError } from "../../../src/errors.ts";
import {
  getEntropy,
  MAX_ENTROPY_BYTES,
  readBytes,
  readData,
} from "../../../src/protocol/catalog/data.ts";
import { hex } from "../../../src/protocol/paging.ts";
import { impl, type ToolImpl } from "../../backend.ts";
import { bytesResult, TYPE_SIZES } from "../../shared/values.ts";
import { type DbAccess, type EmbeddedDb, resolveMapped } from "../db.ts";

/** Most bytes one read_data call walks. */
const MAX_TYPED_READ_BYTES = 1024 * 1024;

/** The data tools over `db`. */
export function dataTools(db: DbAccess): ToolImpl[] {
  return [
    impl(getEntropy, (args) => {
      const d = db();
      const counts = new Float64Array(256);
      const items: { name?: string; start: string; size: number; entropy: number }[] = [];
      let total = 0;
      const add = (bytes: Uint8Array, name?: string, start = 0) => {
        const local = new Float64Array(256);
        for (const b of bytes) local[b]!++;
        for (let i = 0; i < 256; i++) counts[i]! += local[i]!;
        total += bytes.length;
        items.push({
          ...(name ? { name } : {}),
          start: hex(start),
          size: bytes.length,
          entropy: entropyOf(local, bytes.length),
        });
      };
      if (args.address === undefined) {
        for (const s of d.image.sections) {
          if (s.fileSize === 0 || s.end <= s.start) continue;
          add(
            d.image.readUpTo(s.start, Math.min(s.end - s.start, MAX_ENTROPY_BYTES)),
            s.name,
            s.start,
          );
        }
      } else {
        const start = resolveMapped(d, args.address);
        const bytes = d.image.readUpTo(start, args.size ?? MAX_ENTROPY_BYTES);
        const block = args.block_size ?? 4096;
        for (let at = 0; at < bytes.length; at += block) {
          add(bytes.subarray(at, Math.min(at + block, bytes.length)), undefined, start + at);
        }
      }
      return { items, entropy: entropyOf(counts, total), bytes: total };
    }, { duringAnalysis: true }),
    impl(readBytes, (args) => {
      const d = db();
      const addr = resolveMapped(d, args.address);
      return bytesResult(addr, d.image.readUpTo(addr, args.size), args.size);
    }, { duringAnalysis: true }),
    impl(readData, (args) => {
      const d = db();
      const addr = resolveMapped(d, args.address);
      const count = args.count ?? 1;
      const little = (args.endian ?? d.image.endian) === "little";
      const values: (number | string | null)[] = [];
      const names: (string | null)[] = [];
      let at = addr;
      const type = args.type === "pointer" ? (d.image.bits === 64 ? "u64" : "u32") : args.type;
      let stopped = false;
      for (let i = 0; i < count; i++) {
        // Strings are bounded one by one; bound the whole read too, so a request for thousands of
        // long strings cannot balloon the worker.
        if (at - addr > MAX_TYPED_READ_BYTES) {
          stopped = true;
          break;
        }
        if (type === "cstring" || type === "utf16") {
          const s = readString(d, at, type, args.max_length ?? 1024);
          values.push(s?.text ?? null);
          at += s ? s.bytes : 1;
          continue;
        }
        const size = TYPE_SIZES[type]!;
        const raw = d.image.read(at, size);
        if (!raw) {
          if (values.length === 0) {
            throw new RemcpError("InvalidAddress", `${hex(at)}: fewer than ${size} bytes mapped`, {
              address: hex(at),
            });
          }
          break;
        }
        const v = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
        let value: number | string;
        switch (type) {
          case "u8":
            value = v.getUint8(0);
            break;
          case "i8":
            value = v.getInt8(0);
            break;
          case "u16":
            value = v.getUint16(0, little);
            break;
          case "i16":
            value = v.getInt16(0, little);
            break;
          case "u32":
            value = v.getUint32(0, little);
            break;
          case "i32":
            value = v.getInt32(0, little);
            break;
          case "f32":
            value = v.getFloat32(0, little);
            break;
          case "f64":
            value = v.getFloat64(0, little);
            break;
          default: {
            // 64-bit integers beyond 2^53 are returned as hex strings so no precision is lost.
            const big = type === "i64" ? v.getBigInt64(0, little) : v.getBigUint64(0, little);
            value =
              big <= BigInt(Number.MAX_SAFE_INTEGER) && big >= -BigInt(Number.MAX_SAFE_INTEGER)
                ? Number(big)
                : "0x" + BigInt.asUintN(64, big).toString(16);
          }
        }
        if (args.type === "pointer") {
          const n = typeof value === "number" ? d.names.nearest(value) : undefined;
          names.push(n ? (n.offset ? `${n.name}+${hex(n.offset)}` : n.name) : null);
          values.push(typeof value === "number" ? hex(value) : value);
        } else values.push(value);
        at += size;
      }
      return {
        address: hex(addr),
        type: args.type,
        values,
        ...(args.type === "pointer" ? { names } : {}),
        ...(stopped
          ? {
            warnings: [{
              code: "truncated",
              message: `Stopped after ${values.length} values (${MAX_TYPED_READ_BYTES} bytes): ` +
                `read the rest from ${hex(at)}`,
            }],
          }
          : {}),
      };
    }, { duringAnalysis: true }),
  ];
}

/** Reads a NUL-terminated string; `bytes` includes the terminator when present. */
export function readString(
  d: EmbeddedDb,
  addr: number,
  kind: "cstring" | "utf16",
  maxChars: number,
): { text: string; bytes: number } | undefined {
  const unit = kind === "utf16" ? 2 : 1;
  const raw = d.image.readUpTo(addr, maxChars * unit + unit);
  if (raw.length < unit) return undefined;
  let end = 0;
  while (end + unit <= raw.length && end < maxChars * unit) {
    const zero = unit === 1 ? raw[end] === 0 : raw[end] === 0 && raw[end + 1] === 0;
    if (zero) break;
    end += unit;
  }
  const body = raw.subarray(0, end);
  const text = kind === "utf16"
    ? new TextDecoder("utf-16le").decode(body)
    : new TextDecoder("utf-8", { fatal: false }).decode(body);
  return { text, bytes: Math.min(end + unit, raw.length) };
}

/** Shannon entropy in bits per byte of a byte histogram. */
function entropyOf(counts: Float64Array, total: number): number {
  if (total === 0) return 0;
  let h = 0;
  for (const c of counts) {
    if (c === 0) continue;
    const p = c / total;
    h -= p * Math.log2(p);
  }
  return Math.round(h * 1000) / 1000;
}
