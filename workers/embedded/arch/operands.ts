/**
 * Splits an instruction's printed operands at the commas between them, not those inside a
 * memory operand (`[x1, #8]`, `(%rax,%rbx)`) or a register list (`{v0.16b, v1.16b}`). Shared by
 * the analysis's jump-table readers and the AArch64 lifter's operand reader.
 */
export function splitOperands(operands: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = "";
  for (const ch of operands) {
    if (ch === "[" || ch === "(" || ch === "{") depth++;
    if (ch === "]" || ch === ")" || ch === "}") depth--;
    if (ch === "," && depth === 0) {
      out.push(cur.trim());
      cur = "";
    } else cur += ch;
  }
  if (cur.trim() !== "") out.push(cur.trim());
  return out;
}
