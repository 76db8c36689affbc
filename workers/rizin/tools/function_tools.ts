/**
 * Rizin handlers: functions, basic blocks, control flow, the call graph, and decompilation
 * (rz-ghidra `pdg`, else jsdec `pdd`, else `pdc` where the rizin has it). Function listings are
 * built block by block from `afbj` + `pdj` and paged, never from `pdf` (slow on big functions).
 */
import { z } from "zod";
import { RemcpError } from "../../../src/errors.ts";
import * as spec from "../../../src/protocol/catalog/functions.ts";
import { hex, pageOf, paginate } from "../../../src/protocol/paging.ts";
import { impl, type ToolImpl } from "../../backend.ts";
import { type DbAccess, resolveFunction, type RizinDb } from "../db.ts";
import { type Fn, type Model, readStrings, type StringEntry } from "../model.ts";
import { addr } from "../quote.ts";
import { parseRz, RzBlock } from "../rz_json.ts";
import type { Conn } from "../session.ts";
import { withRizin } from "./_common.ts";
import { type Op, ops, row } from "./code_tools.ts";

/** A basic block of a function. */
export type Block = z.output<typeof RzBlock>;

/** The function's basic blocks in address order. */
export async function blocksOf(c: Conn, f: Fn): Promise<Block[]> {
  const cmd = `afbj @ ${addr(f.start)}`;
  return parseRz(z.array(RzBlock), await c.json(cmd, []), cmd).sort((a, b) => a.addr - b.addr);
}

/** Instructions `[from, from + count)` of a function in block order. */
export async function functionOps(
  c: Conn,
  blocks: Block[],
  from: number,
  count: number,
): Promise<{ op: Op; label?: string }[]> {
  const out: { op: Op; label?: string }[] = [];
  let index = 0;
  for (const b of blocks) {
    const n = b.ninstr ?? 0;
    if (index + n <= from) {
      index += n;
      continue;
    }
    if (out.length >= count) break;
    const list = (await ops(c, b.addr, n)).filter((o) => o.offset < b.addr + b.size);
    list.forEach((op, i) => {
      const at = index + i;
      if (at >= from && out.length < count) {
        out.push(i === 0 ? { op, label: `loc_${b.addr.toString(16)}` } : { op });
      }
    });
    index += n;
  }
  return out;
}

/** Flags of a function as list_functions shows them. */
export function flagsOf(m: Model, f: Fn): string[] {
  const flags: string[] = [];
  if (f.rzName.startsWith("sym.imp.")) flags.push("import", "thunk");
  if (f.noreturn) flags.push("noreturn");
  if (/^(flirt|sym\.lib)\./.test(f.rzName)) flags.push("library");
  if (m.userName(f.start)) flags.push("user_named");
  return flags;
}

function item(m: Model, f: Fn) {
  return {
    name: m.functionName(f),
    start: hex(f.start),
    end: hex(f.end),
    size: f.size,
    blocks: f.blocks,
    flags: flagsOf(m, f),
  };
}

function successors(b: Block): number[] {
  const out: number[] = [];
  if (b.jump !== undefined && b.jump !== null) out.push(b.jump);
  if (b.fail !== undefined && b.fail !== null) out.push(b.fail);
  for (const k of b.switch_op?.cases ?? []) if (!out.includes(k.jump)) out.push(k.jump);
  return out;
}

const blockOut = (b: Block) => ({
  start: hex(b.addr),
  end: hex(b.addr + b.size),
  instructions: b.ninstr ?? 0,
  successors: successors(b).map(hex),
});

/** Callers (functions calling `f`) from every function's call list. */
function callersOf(m: Model, f: Fn): Fn[] {
  const seen = new Set<number>();
  const out: Fn[] = [];
  for (const g of m.an.functions) {
    if (!seen.has(g.start) && g.calls.some((x) => x.to === f.start)) {
      seen.add(g.start);
      out.push(g);
    }
  }
  return out;
}

function calleesOf(m: Model, f: Fn): { address: number; fn?: Fn }[] {
  const seen = new Set<number>();
  const out: { address: number; fn?: Fn }[] = [];
  for (const x of f.calls) {
    if (seen.has(x.to)) continue;
    seen.add(x.to);
    const fn = m.functionAt(x.to);
    out.push(fn ? { address: x.to, fn } : { address: x.to });
  }
  return out;
}

const DECOMPILERS = [
  { engine: "rz-ghidra", command: "pdg" },
  { engine: "jsdec", command: "pdd" },
  { engine: "rizin pdc", command: "pdc" },
] as const;

/** Whether the output of a `p…` command is rizin's help (the command does not exist). */
function isMissing(output: string, errors: string[]): boolean {
  return /^Usage: p/.test(output.trim()) || errors.some((e) => /does not exist/.test(e));
}

/** The function tools over `db`. */
export function functionTools(db: DbAccess): ToolImpl[] {
  const summary = async (c: Conn, m: Model, d: RizinDb, f: Fn, max: number, lines: number) => {
    const callers = callersOf(m, f);
    const callees = calleesOf(m, f);
    const strings = await stringsOf(c, m, f);
    const imports = callees.filter((x) => x.fn?.rzName.startsWith("sym.imp."))
      .map((x) => m.functionName(x.fn!));
    const blocks = await blocksOf(c, f);
    const instructions = blocks.reduce((n, b) => n + (b.ninstr ?? 0), 0) || f.instructions;
    const listing = lines > 0 ? await functionOps(c, blocks, 0, lines) : [];
    const disassembly = listing.map(({ op }) => {
      const r = row(m, d, op);
      const note = r.target_name ?? r.ref_name;
      return `${r.address}: ${r.mnemonic} ${r.operands}`.trimEnd() + (note ? ` ; ${note}` : "");
    }).join("\n");
    return {
      ...item(m, f),
      instructions,
      cyclomatic_complexity: f.cc,
      ...(f.signature ? { prototype: d.store.get("prototype", f.start) ?? f.signature } : {}),
      ...(d.store.get("comment", f.start) ? { comment: d.store.get("comment", f.start)! } : {}),
      callers: callers.slice(0, max).map((g) => ({
        name: m.functionName(g),
        address: hex(g.start),
      })),
      callers_total: callers.length,
      callees: callees.slice(0, max).map((x) => ({
        name: x.fn ? m.functionName(x.fn) : m.label(x.address) ?? hex(x.address),
        address: hex(x.address),
      })),
      callees_total: callees.length,
      strings: strings.slice(0, max).map((s) => ({ address: hex(s.address), text: s.text })),
      strings_total: strings.length,
      imports: [...new Set(imports)].slice(0, max),
      imports_total: new Set(imports).size,
      disassembly,
    };
  };

  return [
    impl(spec.listFunctions, (args) =>
      withRizin(db, (_c, m) => {
        const list = args.sort === "size"
          ? [...m.an.functions].sort((a, b) => b.size - a.size || a.start - b.start)
          : m.an.functions;
        return paginate(list, args, (f) => m.functionName(f), (f) => item(m, f));
      })),
    impl(spec.getFunction, (args) =>
      withRizin(db, async (c, m, d) => {
        const f = resolveFunction(m, args.address, d.name);
        const blocks = await blocksOf(c, f);
        const chunks: { start: number; end: number }[] = [];
        for (const b of blocks) {
          const last = chunks[chunks.length - 1];
          if (last && last.end === b.addr) last.end = b.addr + b.size;
          else chunks.push({ start: b.addr, end: b.addr + b.size });
        }
        const proto = d.store.get("prototype", f.start) ?? f.signature;
        const comment = d.store.get("comment", f.start);
        return {
          ...item(m, f),
          chunks: chunks.map((x) => ({ start: hex(x.start), end: hex(x.end) })),
          ...(proto ? { prototype: proto } : {}),
          ...(comment ? { comment } : {}),
        };
      })),
    impl(spec.functionSummary, (args) =>
      withRizin(db, (c, m, d) => {
        const f = resolveFunction(m, args.address, d.name);
        return summary(c, m, d, f, args.max_items ?? 20, args.disassembly_lines ?? 30);
      })),
    impl(spec.disassembleFunction, (args) =>
      withRizin(db, async (c, m, d) => {
        const f = resolveFunction(m, args.address, d.name);
        const blocks = await blocksOf(c, f);
        const total = blocks.reduce((n, b) => n + (b.ninstr ?? 0), 0);
        const offset = args.offset ?? 0;
        const limit = args.limit ?? 200;
        const rows = await functionOps(c, blocks, offset, limit);
        const items = rows.map(({ op, label }) => ({
          ...row(m, d, op),
          ...(label ? { label: op.offset === f.start ? m.functionName(f) : label } : {}),
        }));
        const has_more = offset + items.length < total;
        return {
          name: m.functionName(f),
          start: hex(f.start),
          end: hex(f.end),
          items,
          total,
          offset,
          limit,
          has_more,
          ...(has_more ? { next_offset: offset + items.length } : {}),
        };
      })),
    impl(spec.decompileFunction, (args) =>
      withRizin(db, async (c, m, d) => {
        const f = resolveFunction(m, args.address, d.name);
        const skipped: { engine: string; command: string; reason: string }[] = [];
        for (const e of DECOMPILERS) {
          const r = await c.run(`${e.command} @ ${addr(f.start)}`);
          if (isMissing(r.output, r.errors)) {
            skipped.push({ ...e, reason: "not installed in this rizin" });
            continue;
          }
          if (r.failed || r.output.trim() === "") {
            skipped.push({ ...e, reason: `failed: ${r.errors.join("; ") || "no output"}` });
            continue;
          }
          return {
            name: m.functionName(f),
            start: hex(f.start),
            engine: `${e.engine} (${e.command})`,
            code: r.output.replace(/\s+$/, "") + "\n",
            ...(skipped.length
              ? {
                warnings: skipped.map((s) => ({
                  code: "decompiler_skipped",
                  message: `${s.engine} (${s.command}) skipped: ${s.reason}`,
                })),
              }
              : {}),
          };
        }
        throw new RemcpError(
          "Unsupported",
          `No decompiler is available in rizin ${d.version.text}: ` +
            skipped.map((s) => `${s.engine} (${s.command}): ${s.reason}`).join("; ") +
            `. Install rz-ghidra (rizin's Ghidra decompiler plugin) or jsdec, or use ` +
            `disassemble_function`,
          { engines: skipped },
        );
      })),
    impl(spec.getBasicBlocks, (args) =>
      withRizin(db, async (c, m, d) => {
        const f = resolveFunction(m, args.address, d.name);
        return pageOf(await blocksOf(c, f), args, blockOut);
      })),
    impl(spec.getCfg, (args) =>
      withRizin(db, async (c, m, d) => {
        const f = resolveFunction(m, args.address, d.name);
        const blocks = await blocksOf(c, f);
        const edges: {
          from: string;
          to: string;
          kind: "fallthrough" | "jump" | "true" | "false" | "case";
          case?: number;
        }[] = [];
        for (const b of blocks) {
          const end = b.addr + b.size;
          const hasJump = b.jump !== undefined && b.jump !== null;
          const hasFail = b.fail !== undefined && b.fail !== null;
          if (hasJump && hasFail) {
            edges.push({ from: hex(b.addr), to: hex(b.jump!), kind: "true" });
            edges.push({ from: hex(b.addr), to: hex(b.fail!), kind: "false" });
          } else if (hasJump) {
            edges.push({
              from: hex(b.addr),
              to: hex(b.jump!),
              kind: b.jump === end ? "fallthrough" : "jump",
            });
          } else if (hasFail) {
            edges.push({ from: hex(b.addr), to: hex(b.fail!), kind: "fallthrough" });
          }
          for (const k of b.switch_op?.cases ?? []) {
            edges.push({
              from: hex(b.addr),
              to: hex(k.jump),
              kind: "case",
              ...(k.value !== undefined && k.value !== null ? { case: k.value } : {}),
            });
          }
        }
        return {
          name: m.functionName(f),
          start: hex(f.start),
          blocks: blocks.map(blockOut),
          edges,
        };
      })),
    impl(spec.getCallGraph, (args) =>
      withRizin(db, (_c, m, d) => {
        const root = resolveFunction(m, args.address, d.name);
        const direction = args.direction ?? "callees";
        const depthMax = args.depth ?? 2;
        const maxNodes = args.max_nodes ?? 200;
        const nodes = new Map<number, number>([[root.start, 0]]);
        const edges = new Map<string, { from: number; to: number }>();
        let truncated = false;
        let frontier = [root];
        for (let depth = 1; depth <= depthMax && frontier.length; depth++) {
          const next: Fn[] = [];
          for (const f of frontier) {
            const links: { from: Fn; to: Fn }[] = [];
            if (direction !== "callers") {
              for (const x of calleesOf(m, f)) if (x.fn) links.push({ from: f, to: x.fn });
            }
            if (direction !== "callees") {
              for (const g of callersOf(m, f)) links.push({ from: g, to: f });
            }
            for (const l of links) {
              const other = l.from === f ? l.to : l.from;
              if (!nodes.has(other.start)) {
                if (nodes.size >= maxNodes) {
                  truncated = true;
                  continue;
                }
                nodes.set(other.start, depth);
                next.push(other);
              }
              edges.set(`${l.from.start}>${l.to.start}`, { from: l.from.start, to: l.to.start });
            }
          }
          frontier = next;
        }
        const name = (a: number) => {
          const f = m.functionAt(a);
          return f ? m.functionName(f) : hex(a);
        };
        return {
          root: { name: m.functionName(root), address: hex(root.start) },
          nodes: [...nodes].map(([a, depth]) => ({ name: name(a), address: hex(a), depth })),
          edges: [...edges.values()].map((e) => ({ from: hex(e.from), to: hex(e.to) })),
          ...(truncated ? { truncated: true } : {}),
        };
      })),
  ];
}

/** rizin's strings, read once per model. */
export async function stringTable(c: Conn, m: Model): Promise<StringEntry[]> {
  m.strings ??= await readStrings(c);
  return m.strings;
}

/** Strings a function references (its data refs that land on a string rizin knows). */
async function stringsOf(c: Conn, m: Model, f: Fn): Promise<{ address: number; text: string }[]> {
  const table = await stringTable(c, m);
  const byAddr = new Map(table.map((s) => [s.address, s]));
  const seen = new Set<number>();
  const out: { address: number; text: string }[] = [];
  for (const r of f.data) {
    const s = byAddr.get(r.to);
    if (!s || seen.has(r.to)) continue;
    seen.add(r.to);
    out.push({ address: s.address, text: s.text });
  }
  return out;
}
