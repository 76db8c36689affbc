/** Rizin handlers: reading bytes and typed data (bytes come from `p8`, decoding is ours). */
import { RemcpError } from "../../../src/errors.ts";
import { readBytes, readData } from "../../../src/protocol/catalog/data.ts";
import { hex } from "../../../src/protocol/paging.ts";
import { impl, type ToolImpl } from "../../backend.ts";
import { bytesResult, TYPE_SIZES } from "../../shared/values.ts";
import { type DbAccess, resolveMapped } from "../db.ts";
import type { Model } from "../model.ts";
import { addr } from "../quote.ts";
import type { Conn } from "../session.ts";
import { withRizin } from "./_common.ts";

/** How many bytes from `a` on are mapped without a gap (at most `want`). */
export function mappedRun(m: Model, a: number, want: number): number {
  let at = a;
  const end = a + want;
  const ranges = m.st.maps.length ? m.st.maps : m.st.segments;
  while (at < end) {
    const r = ranges.find((x) => at >= x.start && at < x.end);
    if (!r) break;
    at = r.end;
  }
  return Math.min(at, end) - a;
}

/** Reads up to `size` mapped bytes at `a` through `p8`. */
export async function readMem(c: Conn, m: Model, a: number, size: number): Promise<Uint8Array> {
  const n = mappedRun(m, a, size);
  if (n <= 0) return new Uint8Array();
  const out = new Uint8Array(n);
  // p8 is bounded by rizin's block size: read in chunks.
  for (let done = 0; done < n;) {
    const len = Math.min(n - done, 0x10000);
    const text = (await c.must(`p8 ${len} @ ${addr(a + done)}`)).replace(/\s+/g, "");
    if (text.length < len * 2) break;
    for (let i = 0; i < len; i++) out[done + i] = Number.parseInt(text.slice(i * 2, i * 2 + 2), 16);
    done += len;
  }
  return out;
}

/** The data tools over `db`. */
export function dataTools(db: DbAccess): ToolImpl[] {
  return [
    impl(readBytes, (args) =>
      withRizin(db, async (c, m, d) => {
        const a = resolveMapped(m, args.address, d.name);
        const bytes = await readMem(c, m, a, args.size);
        return bytesResult(a, bytes, args.size);
      })),
    impl(readData, (args) =>
      withRizin(db, async (c, m, d) => {
        const a = resolveMapped(m, args.address, d.name);
        const count = args.count ?? 1;
        const bits = d.staticFacts()?.info.bin?.bits ?? 64;
        const binLittle = !(d.staticFacts()?.info.bin?.endian ?? "little").startsWith("b");
        const little = args.endian ? args.endian === "little" : binLittle;
        const type = args.type === "pointer" ? (bits === 64 ? "u64" : "u32") : args.type;
        const maxLen = args.max_length ?? 1024;
        const unit = type === "utf16" ? 2 : 1;
        const want = type === "cstring" || type === "utf16"
          ? Math.min(count * (maxLen + 1) * unit, 1 << 20)
          : count * TYPE_SIZES[type]!;
        const raw = await readMem(c, m, a, want);
        const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
        const values: (number | string | null)[] = [];
        const names: (string | null)[] = [];
        let at = 0;
        for (let i = 0; i < count; i++) {
          if (type === "cstring" || type === "utf16") {
            if (at >= raw.length) break;
            let end = at;
            while (end + unit <= raw.length && (end - at) / unit < maxLen) {
              const zero = unit === 1 ? raw[end] === 0 : raw[end] === 0 && raw[end + 1] === 0;
              if (zero) break;
              end += unit;
            }
            const body = raw.subarray(at, end);
            values.push(
              type === "utf16"
                ? new TextDecoder("utf-16le").decode(body)
                : new TextDecoder("utf-8", { fatal: false }).decode(body),
            );
            at = Math.min(end + unit, raw.length);
            continue;
          }
          const size = TYPE_SIZES[type]!;
          if (at + size > raw.length) {
            if (values.length === 0) {
              throw new RemcpError("InvalidAddress", `${hex(a)}: fewer than ${size} bytes mapped`, {
                address: hex(a),
              });
            }
            break;
          }
          let value: number | string;
          switch (type) {
            case "u8":
              value = view.getUint8(at);
              break;
            case "i8":
              value = view.getInt8(at);
              break;
            case "u16":
              value = view.getUint16(at, little);
              break;
            case "i16":
              value = view.getInt16(at, little);
              break;
            case "u32":
              value = view.getUint32(at, little);
              break;
            case "i32":
              value = view.getInt32(at, little);
              break;
            case "f32":
              value = view.getFloat32(at, little);
              break;
            case "f64":
              value = view.getFloat64(at, little);
              break;
            default: {
              const big = type === "i64"
                ? view.getBigInt64(at, little)
                : view.getBigUint64(at, little);
              value =
                big <= BigInt(Number.MAX_SAFE_INTEGER) && big >= -BigInt(Number.MAX_SAFE_INTEGER)
                  ? Number(big)
                  : "0x" + BigInt.asUintN(64, big).toString(16);
            }
          }
          if (args.type === "pointer") {
            const n = typeof value === "number" ? m.nearest(value) : undefined;
            names.push(n ? (n.offset ? `${n.name}+${hex(n.offset)}` : n.name) : null);
            values.push(typeof value === "number" ? hex(value) : value);
          } else values.push(value);
          at += size;
        }
        return {
          address: hex(a),
          type: args.type,
          values,
          ...(args.type === "pointer" ? { names } : {}),
        };
      })),
  ];
}
