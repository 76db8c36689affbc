/**
 * Parsing and formatting shared by every TypeScript backend's tools: byte patterns, integer
 * values, hex dumps and the short-read warning.
 */
import { RemcpError } from "../../src/errors.ts";
import { hex } from "../../src/protocol/paging.ts";

/** A byte pattern: values, with -1 for a `??` wildcard ("48 8b ?? 10", "488b??10"). */
export function parsePattern(text: string): number[] {
  const tokens = text.trim().replace(/\s+/g, " ").split(" ").flatMap((t) =>
    t.length > 2 && /^[0-9a-f?]+$/i.test(t) && t.length % 2 === 0 ? t.match(/../g)! : [t]
  );
  return tokens.map((t) => {
    if (t === "??" || t === "?") return -1;
    if (!/^[0-9a-f]{2}$/i.test(t)) {
      throw new RemcpError(
        "InvalidArgument",
        `pattern has "${t}", which is not a hex byte or ??: write bytes like "48 8b ?? 10"`,
        { param: "pattern" },
      );
    }
    return Number.parseInt(t, 16);
  });
}

/** An integer given as a number, "0x…", decimal or negative text. */
export function parseInteger(v: number | string, param = "value"): number {
  if (typeof v === "number") return v;
  const t = v.trim().toLowerCase();
  const neg = t.startsWith("-");
  const body = neg ? t.slice(1) : t;
  const n = body.startsWith("0x") ? Number.parseInt(body.slice(2), 16) : Number(body);
  if (!Number.isSafeInteger(n)) {
    throw new RemcpError("InvalidArgument", `${param} "${v}" is not an integer`, { param });
  }
  return neg ? -n : n;
}

/** Lowercase hex of `bytes`, no separators. */
export function toHex(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out;
}

/** The read_bytes result, with a warning when fewer bytes than asked were mapped. */
export function bytesResult(address: number, bytes: Uint8Array, asked: number) {
  const out: {
    address: string;
    size: number;
    hex: string;
    warnings?: { code: string; message: string }[];
  } = {
    address: hex(address),
    size: bytes.length,
    hex: toHex(bytes),
  };
  if (bytes.length < asked) {
    out.warnings = [{
      code: "short_read",
      message: `Only ${bytes.length} of ${asked} bytes are mapped from ${hex(address)}`,
    }];
  }
  return out;
}

/** Bytes of each fixed-size read_data type. */
export const TYPE_SIZES: Readonly<Record<string, number>> = {
  u8: 1,
  i8: 1,
  u16: 2,
  i16: 2,
  u32: 4,
  i32: 4,
  u64: 8,
  i64: 8,
  f32: 4,
  f64: 8,
};
