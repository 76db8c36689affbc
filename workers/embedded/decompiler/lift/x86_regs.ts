/**
 * x86 register names → the full register they live in, for both modes: `eax` is the low half of
 * `rax` in 64-bit code and a full register in 32-bit code; `ah` is bits 8..15 of `rax`/`eax`.
 */

/** Where a register name lives: `full` register, its byte `size` and bit `shift` inside it. */
export interface RegSlice {
  full: string;
  fullSize: number;
  size: number;
  shift: number;
}

const LEGACY = ["a", "b", "c", "d"];
const INDEXED = ["si", "di", "bp", "sp"];

function table(bits: 32 | 64): Map<string, RegSlice> {
  const t = new Map<string, RegSlice>();
  const fullSize = bits / 8;
  const add = (name: string, full: string, size: number, shift = 0) =>
    t.set(name, { full, fullSize, size, shift });
  for (const l of LEGACY) {
    const full = bits === 64 ? `r${l}x` : `e${l}x`;
    if (bits === 64) add(`r${l}x`, full, 8);
    add(`e${l}x`, full, 4);
    add(`${l}x`, full, 2);
    add(`${l}l`, full, 1);
    add(`${l}h`, full, 1, 8);
  }
  for (const r of INDEXED) {
    const full = bits === 64 ? `r${r}` : `e${r}`;
    if (bits === 64) add(`r${r}`, full, 8);
    add(`e${r}`, full, 4);
    add(r, full, 2);
    add(`${r}l`, full, 1);
  }
  if (bits === 64) {
    for (let i = 8; i < 16; i++) {
      const full = `r${i}`;
      add(full, full, 8);
      add(`${full}d`, full, 4);
      add(`${full}w`, full, 2);
      add(`${full}b`, full, 1);
    }
  }
  return t;
}

const TABLES = { 32: table(32), 64: table(64) };

/**
 * The slice of `name` in `bits`-bit code. Registers outside the general-purpose file (xmm, x87,
 * segment, control) are their own full register, `size` taken from the decoder.
 */
export function regSlice(bits: 32 | 64, name: string, size: number): RegSlice {
  return TABLES[bits].get(name) ?? { full: name, fullSize: size, size, shift: 0 };
}

/** General-purpose full registers of a mode, in encoding order. */
export function gprs(bits: 32 | 64): string[] {
  const out = [...LEGACY.map((l) => bits === 64 ? `r${l}x` : `e${l}x`)];
  out.push(...INDEXED.map((r) => bits === 64 ? `r${r}` : `e${r}`));
  if (bits === 64) { for (let i = 8; i < 16; i++) out.push(`r${i}`); }
  return out;
}
