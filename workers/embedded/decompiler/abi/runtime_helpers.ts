/**
 * The compiler's runtime helpers for 64-bit division on x86-32 (libgcc's `__udivdi3`, …, which
 * gcc and clang call for `/` and `%` of `long long`, `__divmoddi4` for both at once): linked
 * statically into every program that divides such values, they are unnamed `sub_…` functions in
 * a stripped binary, and a call to one is a C operator, not a function. The table holds Debian
 * 12's libgcc (12.2.0); another build's helpers stay calls. They are recognised by their exact bytes: size and
 * SHA-256 of the whole helper, made by runtime_helpers_make.ts from binaries built here.
 */
import { createHash } from "node:crypto";
import type { BinOp } from "../ir.ts";

/**
 * One helper: its name, the operator it is (`sdivmod`/`udivmod`: the quotient, with the remainder
 * stored through a fifth argument, a pointer), and what its bytes are.
 */
export interface RuntimeHelper {
  name: string;
  op: Extract<BinOp, "udiv" | "urem" | "sdiv" | "srem"> | "sdivmod" | "udivmod";
  size: number;
  sha256: string;
}

// deno-fmt-ignore
const HELPERS: readonly RuntimeHelper[] = [
  { name: "__divdi3", op: "sdiv", size: 313, sha256: "132cb48ce3a66842157469f3855ff4406a2935053919f4f4a1e467b63e71f301" }, // libgcc 12.2.0, -m32
  { name: "__divmoddi4", op: "sdivmod", size: 512, sha256: "b3d3c1a372d05c6369f0065256228dae48cdaa8fa2230ff72f02727275ce99cf" }, // libgcc 12.2.0, -m32
  { name: "__moddi3", op: "srem", size: 365, sha256: "b9080876cb16f098584901942593b4826614f6603bff10608362dbeb3caf7fa2" }, // libgcc 12.2.0, -m32
  { name: "__udivdi3", op: "udiv", size: 282, sha256: "e523591105621a1e193c890c36799a607ca28aa64d9f4ac182fa454890bcd95f" }, // libgcc 12.2.0, -m32
  { name: "__udivmoddi4", op: "udivmod", size: 450, sha256: "86e1014610535e7658b305894d5a9a909e447c661d42ebdcbb3ad469fc4bf476" }, // libgcc 12.2.0, -m32
  { name: "__umoddi3", op: "urem", size: 319, sha256: "d11ca2c08bdbe7dc1679a3edc3075dac0109b0245cf302090fd37d8e0a392ca9" }, // libgcc 12.2.0, -m32
];

const SIZES = [...new Set(HELPERS.map((h) => h.size))];

/**
 * The helper whose code starts at `address`, read through `bytesAt`; undefined for any other
 * code. Hashes one read per distinct size in the table (the caller remembers the answer).
 */
export function runtimeHelperAt(
  bytesAt: (address: number, length: number) => Uint8Array | undefined,
  address: number,
): RuntimeHelper | undefined {
  for (const size of SIZES) {
    const bytes = bytesAt(address, size);
    if (!bytes || bytes.length !== size) continue;
    const digest = createHash("sha256").update(bytes).digest("hex");
    const found = HELPERS.find((h) => h.size === size && h.sha256 === digest);
    if (found) return found;
  }
  return undefined;
}
