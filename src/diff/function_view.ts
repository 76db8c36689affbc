/**
 * One function as diff_function and port_annotations compare it: its blocks with their
 * instructions as text normalized so that moved code reads the same (addresses of other code
 * and data become names or placeholders), read through the tools every backend shares.
 */
import type { ToolCaller } from "./gather.ts";
import type { BlockView } from "./blocks.ts";
import { DEFAULT_NAME } from "./match.ts";

/** A function's blocks (entry first) and identity. */
export interface FunctionView {
  name: string;
  start: number;
  blocks: (BlockView & { addresses: number[] })[];
}

type Obj = Record<string, unknown>;
const num = (v: unknown) => typeof v === "string" ? Number(v) : Number(v ?? NaN);

/** Reads function `address` of the database behind `call`. */
export async function readFunction(call: ToolCaller, address: string): Promise<FunctionView> {
  const cfg = await call("get_cfg", { address });
  const rows: Obj[] = [];
  let offset = 0;
  for (;;) {
    const page = await call("disassemble_function", { address, offset, limit: 10_000 });
    rows.push(...(page.items as Obj[]));
    if (page.has_more !== true || typeof page.next_offset !== "number") break;
    offset = page.next_offset;
  }
  const start = num(cfg.start);
  const raw = (cfg.blocks as Obj[]).map((b) => ({ start: num(b.start), end: num(b.end) }))
    .sort((x, y) => (x.start === start ? -1 : y.start === start ? 1 : x.start - y.start));
  const index = new Map(raw.map((b, i) => [b.start, i]));
  const inside = (v: number) => raw.some((b) => v >= b.start && v < b.end);
  const blocks = raw.map((b) => ({
    ...b,
    lines: [] as string[],
    addresses: [] as number[],
    successors: [] as number[],
    predecessors: [] as number[],
  }));
  for (const e of cfg.edges as Obj[]) {
    const from = index.get(num(e.from));
    const to = index.get(num(e.to));
    if (from === undefined || to === undefined) continue;
    if (!blocks[from]!.successors.includes(to)) blocks[from]!.successors.push(to);
    if (!blocks[to]!.predecessors.includes(from)) blocks[to]!.predecessors.push(from);
  }
  for (const r of rows) {
    const at = num(r.address);
    const blk = blocks.find((b) => at >= b.start && at < b.end);
    if (!blk) continue;
    blk.addresses.push(at);
    blk.lines.push(normalize(r, inside));
  }
  return { name: String(cfg.name), start, blocks };
}

/** An instruction's text with addresses that move between versions replaced. */
function normalize(r: Obj, inside: (v: number) => boolean): string {
  let ops = String(r.operands ?? "");
  const label = (addr: unknown, name: unknown, local: string, other: string) => {
    const a = num(addr);
    // Jumps inside the function and unnamed targets read the same wherever the code moved.
    const named = typeof name === "string" &&
      !DEFAULT_NAME.test(name.replace(/[+-]0x[0-9a-f]+$/i, ""));
    return inside(a) ? local : named ? name : other;
  };
  const swap = (addr: unknown, n: string, name: unknown) => {
    ops = ops.replace(new RegExp(`\\b0x0*${num(addr).toString(16)}\\b`, "gi"), n);
    if (typeof name === "string" && name !== "") ops = ops.split(name).join(n);
  };
  if (r.target !== undefined) {
    swap(r.target, label(r.target, r.target_name, "<local>", "<func>"), r.target_name);
  }
  if (r.ref !== undefined) {
    const n = label(r.ref, r.ref_name, "<local>", "<data>");
    swap(r.ref, n, r.ref_name);
    ops = ops.replace(/\b(rip|pc)\s*[+-]\s*0x[0-9a-f]+/gi, `$1+${n}`);
  }
  return `${String(r.mnemonic ?? "")} ${ops}`.trim();
}
