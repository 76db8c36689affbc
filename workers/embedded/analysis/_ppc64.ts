/**
 * PowerPC64 specifics of function discovery that need more than one instruction's bytes.
 */

import type { BinaryImage } from "../formats/image.ts";
import type { CodeCache } from "./_code_cache.ts";
import type { Trace } from "./_explore.ts";

/**
 * Whether every undecodable word a probe ran into is the traceback table after a call: GCC ends
 * each function with a zero word and its traceback table, so a function whose last instruction
 * calls one that does not return (`bl error`) falls through into that table while the callee is
 * not yet known not to return. That is the function's end, not a sign of data.
 */
export function badOnlyAfterCalls(image: BinaryImage, trace: Trace, cache: CodeCache): boolean {
  for (const insn of trace.insns.values()) {
    const next = insn.address + insn.size;
    const succ: number[] = [];
    if (insn.flow === "seq" || insn.flow === "cjump") succ.push(next);
    if ((insn.flow === "jump" || insn.flow === "cjump") && insn.target !== undefined) {
      succ.push(insn.target);
    }
    for (const s of succ) if (!trace.insns.has(s) && undecodable(cache, s)) return false;
    if ((insn.flow === "call" || insn.flow === "icall") && !trace.insns.has(next)) {
      const w = cache.at(next);
      if (w !== undefined && w.flow !== "invalid") continue;
      if (!zeroWord(image, next)) return false;
    }
  }
  return true;
}

function undecodable(cache: CodeCache, addr: number): boolean {
  if (!cache.isCode(addr)) return false;
  const insn = cache.at(addr);
  return insn === undefined || insn.flow === "invalid";
}

function zeroWord(image: BinaryImage, addr: number): boolean {
  const b = image.readUpTo(addr, 4);
  return b.length === 4 && (b[0]! | b[1]! | b[2]! | b[3]!) === 0;
}
