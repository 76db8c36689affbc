/** Embedded handlers: functions, blocks, control flow, call graph, strings and decompilation. */
import { RemcpError } from "../../../src/errors.ts";
import * as F from "../../../src/protocol/catalog/functions.ts";
import { listStrings } from "../../../src/protocol/catalog/data.ts";
import { hex, pageOf } from "../../../src/protocol/paging.ts";
import { compileFilter } from "../../../src/protocol/pattern.ts";
import { impl, type ToolImpl } from "../../backend.ts";
import { analysisOf, type DbAccess, type EmbeddedDb, fnName, functionContaining } from "../db.ts";
import type { FunctionInfo } from "../analysis/types.ts";
import type { DecodeOptions, Decoder, Insn } from "../arch/types.ts";
import { rowNamer } from "./code_tools.ts";
import {
  decompiled,
  type DecompileLimits,
  DecompilerCache,
  limitsFromEnv,
  printUntil,
  renderFor,
} from "../decompiler/service.ts";
import { budgetClock } from "../decompiler/clock.ts";
import { tierLabel } from "../decompiler/render.ts";
import { fitRendered, MAX_CODE_BYTES } from "../decompiler/fit.ts";
import { localAnnotations } from "../decompiler/locals.ts";

/** Bytes a function covers: its main extent plus its chunks. */
function sizeOf(fn: FunctionInfo): number {
  return fn.end - fn.start + fn.chunks.reduce((n, c) => n + (c.end - c.start), 0);
}

/** The list_functions row of `fn`. */
/**
 * Bytes of code and line map one decompile_function result carries: three quarters of the
 * default output cap, which leaves room for the rest of the result.
 */

let forced: DecompileLimits | undefined;
/** The decompiler's limits: the defaults, or a tier the benchmark forces (read once). */
function decompilerLimits(): DecompileLimits {
  return forced ??= limitsFromEnv((name) => Deno.env.get(name));
}

export function functionRow(d: EmbeddedDb, fn: FunctionInfo) {
  const flags: string[] = [...fn.flags];
  if (d.names.userName(fn.start) !== undefined) flags.push("user_named");
  return {
    name: fnName(d, fn),
    start: hex(fn.start),
    end: hex(fn.end),
    size: sizeOf(fn),
    blocks: fn.blocks.length,
    flags,
  };
}

/** Decodes `fn`'s instructions in address order (ARM/Thumb chosen per block). */
export async function instructionsOf(
  d: EmbeddedDb,
  fn: FunctionInfo,
  options: DecodeOptions = {},
): Promise<Insn[]> {
  const decoders = new Map<number, Decoder>();
  for (const b of fn.blocks) decoders.set(b.start, await d.code.decoder(b.start));
  const fallback = await d.code.decoder(fn.start);
  return analysisOf(d).instructionsOf(fn, (a) => decoders.get(a) ?? fallback, options);
}

/** The function tools over `db`. */
export function functionTools(db: DbAccess): ToolImpl[] {
  return [
    impl(F.listFunctions, (args) => {
      const d = db();
      const re = compileFilter(args.filter);
      let fns = analysisOf(d).functions().filter((f) => !re || re.test(fnName(d, f)));
      if (args.sort === "size") fns = [...fns].sort((a, b) => sizeOf(b) - sizeOf(a));
      return pageOf(fns, args, (f) => functionRow(d, f));
    }),
    impl(F.getFunction, (args) => {
      const d = db();
      const fn = functionContaining(d, args.address);
      const proto = d.store.get("prototype", fn.start);
      const comment = d.store.get("comment", fn.start);
      return {
        ...functionRow(d, fn),
        chunks: fn.chunks.map((c) => ({ start: hex(c.start), end: hex(c.end) })),
        ...(proto ? { prototype: proto } : {}),
        ...(comment ? { comment } : {}),
      };
    }),
    impl(F.functionSummary, async (args) => {
      const d = db();
      const a = analysisOf(d);
      const fn = functionContaining(d, args.address);
      const max = args.max_items ?? 20;
      const lines = args.disassembly_lines ?? 30;
      const insns = await instructionsOf(d, fn);
      const ref = (f: FunctionInfo) => ({ name: fnName(d, f), address: hex(f.start) });
      const callers = a.callers(fn);
      const callees = a.callees(fn).filter((f) => !f.flags.includes("import"));
      const strings = a.stringsOf(fn);
      const imports = a.importsOf(fn);
      const rows = await d.code.rows(insns.slice(0, lines), rowNamer(d));
      const disassembly = rows.map((r) =>
        `${r.address}  ${r.mnemonic} ${r.operands}`.trimEnd() +
        (r.target_name ? `  ; ${r.target_name}` : r.ref_name ? `  ; ${r.ref_name}` : "") +
        (r.comment ? `  ; ${r.comment}` : "")
      ).join("\n") +
        (insns.length > lines ? `\n; … ${insns.length - lines} more instructions` : "");
      const proto = d.store.get("prototype", fn.start);
      const comment = d.store.get("comment", fn.start);
      return {
        name: fnName(d, fn),
        start: hex(fn.start),
        end: hex(fn.end),
        size: sizeOf(fn),
        blocks: fn.blocks.length,
        instructions: insns.length,
        cyclomatic_complexity: a.cyclomaticComplexity(fn),
        flags: functionRow(d, fn).flags,
        ...(proto ? { prototype: proto } : {}),
        ...(comment ? { comment } : {}),
        callers: callers.slice(0, max).map(ref),
        callers_total: callers.length,
        callees: callees.slice(0, max).map(ref),
        callees_total: callees.length,
        strings: strings.slice(0, max).map((s) => ({ address: hex(s.address), text: s.text })),
        strings_total: strings.length,
        imports: imports.slice(0, max).map((f) => fnName(d, f)),
        imports_total: imports.length,
        disassembly,
      };
    }),
    impl(F.disassembleFunction, async (args) => {
      const d = db();
      const a = analysisOf(d);
      const fn = functionContaining(d, args.address);
      const insns = await instructionsOf(d, fn);
      const offset = args.offset ?? 0;
      const limit = args.limit ?? 200;
      const page = insns.slice(offset, offset + limit);
      const blockStarts = new Set(fn.blocks.map((b) => b.start));
      const rows = (await d.code.rows(page, rowNamer(d))).map((r, i) => {
        const at = page[i]!.address;
        if (at === fn.start || !blockStarts.has(at)) return r;
        return {
          ...r,
          label: d.names.userName(at) ?? a.nameAt(at) ?? `loc_${at.toString(16).toUpperCase()}`,
        };
      });
      const out: Record<string, unknown> = {
        name: fnName(d, fn),
        start: hex(fn.start),
        end: hex(fn.end),
        items: rows,
        total: insns.length,
        offset,
        limit,
        has_more: offset + page.length < insns.length,
      };
      if (out.has_more) out.next_offset = offset + page.length;
      return out as never;
    }),
    impl(F.decompileFunction, async (args) => {
      const d = db();
      const fn = functionContaining(d, args.address);
      d.decompiler ??= new DecompilerCache();
      const head = { name: fnName(d, fn), start: hex(fn.start), engine: "remcp" };
      try {
        // Printing counts against the function's budget, on the same clock; and the C past
        // the result's cap is never formatted (a huge function's took longer than its analysis).
        const clock = budgetClock();
        const limits = decompilerLimits();
        const dec = await decompiled(d, fn, d.decompiler, limits, clock);
        const until = printUntil(clock, limits);
        const r = fitRendered(
          renderFor(d, fn, dec, localAnnotations(d, fn.start), {
            maxBytes: MAX_CODE_BYTES,
            outOfTime: () => clock() > until,
          }),
          MAX_CODE_BYTES,
        );
        const warnings = [
          ...(dec.degraded !== undefined
            ? [{ code: "decompiler_degraded", message: `${tierLabel(dec)}: ${dec.degraded}` }]
            : []),
          ...dec.warnings.map((message) => ({ code: "decompiler", message })),
          ...(r.cut !== undefined ? [{ code: "truncated", message: r.cut }] : []),
        ];
        return {
          ...head,
          code: r.code,
          lines: r.lines.map((l) => ({ line: l.line, addresses: l.addresses.map(hex) })),
          ...(warnings.length > 0 ? { warnings } : {}),
          ...(r.cut !== undefined ? { truncated: true } : {}),
        };
      } catch (err) {
        // Over budget or too large: the caller must choose another way (the error says which).
        if (err instanceof RemcpError && (err.code === "Timeout" || err.code === "Unsupported")) {
          if (!/lifts x86/.test(err.message)) throw err;
        }
        // Anything else the decompiler cannot handle yet: say so and show the disassembly.
        const why = err instanceof Error ? err.message : String(err);
        const insns = await instructionsOf(d, fn);
        const rows = await d.code.rows(insns.slice(0, 400), rowNamer(d));
        const code = [
          `/* remcp could not decompile ${head.name}: ${why.replaceAll("*/", "* /")}`,
          "   Its disassembly follows. */",
          ...rows.map((r) =>
            `// ${r.address}  ${r.mnemonic} ${r.operands}`.trimEnd() +
            (r.target_name ? `  ; ${r.target_name}` : "")
          ),
          ...(insns.length > 400 ? [`// … ${insns.length - 400} more instructions`] : []),
        ].join("\n") + "\n";
        return {
          ...head,
          code,
          lines: rows.map((r, i) => ({ line: i + 3, addresses: [r.address] })),
          warnings: [{ code: "decompiler_failed", message: why }],
        };
      }
    }),
    impl(F.getBasicBlocks, async (args) => {
      const d = db();
      const fn = functionContaining(d, args.address);
      const insns = await instructionsOf(d, fn);
      return pageOf(fn.blocks, args, (b) => ({
        start: hex(b.start),
        end: hex(b.end),
        instructions: insns.filter((i) => i.address >= b.start && i.address < b.end).length,
        successors: fn.edges.filter((e) => e.from === b.start && e.kind !== "tail")
          .map((e) => hex(e.to)),
      }));
    }),
    impl(F.getCfg, async (args) => {
      const d = db();
      const fn = functionContaining(d, args.address);
      const insns = await instructionsOf(d, fn);
      const inside = new Set(fn.blocks.map((b) => b.start));
      const kind = {
        fall: "fallthrough",
        jump: "jump",
        true: "true",
        false: "false",
        case: "case",
      } as const;
      return {
        name: fnName(d, fn),
        start: hex(fn.start),
        blocks: fn.blocks.map((b) => ({
          start: hex(b.start),
          end: hex(b.end),
          instructions: insns.filter((i) => i.address >= b.start && i.address < b.end).length,
          successors: fn.edges.filter((e) => e.from === b.start && inside.has(e.to))
            .map((e) => hex(e.to)),
        })),
        edges: fn.edges.filter((e) => e.kind !== "tail" && inside.has(e.to)).map((e) => ({
          from: hex(e.from),
          to: hex(e.to),
          kind: kind[e.kind as keyof typeof kind],
          ...(e.kind === "case" && e.value !== undefined ? { case: e.value } : {}),
        })),
      };
    }),
    impl(F.getCallGraph, (args) => {
      const d = db();
      const a = analysisOf(d);
      const root = functionContaining(d, args.address);
      const direction = args.direction ?? "callees";
      const maxDepth = args.depth ?? 2;
      const maxNodes = args.max_nodes ?? 200;
      const seen = new Map<number, number>([[root.start, 0]]);
      const edges: { from: string; to: string }[] = [];
      let frontier = [root];
      let truncated = false;
      for (let depth = 1; depth <= maxDepth && frontier.length > 0; depth++) {
        const next: FunctionInfo[] = [];
        for (const fn of frontier) {
          const steps: [FunctionInfo, FunctionInfo][] = [];
          if (direction !== "callers") { for (const c of a.callees(fn)) steps.push([fn, c]); }
          if (direction !== "callees") { for (const c of a.callers(fn)) steps.push([c, fn]); }
          for (const [from, to] of steps) {
            edges.push({ from: hex(from.start), to: hex(to.start) });
            const other = from === fn ? to : from;
            if (seen.has(other.start)) continue;
            if (seen.size >= maxNodes) {
              truncated = true;
              continue;
            }
            seen.set(other.start, depth);
            next.push(other);
          }
        }
        frontier = next;
      }
      const byStart = new Map(a.functions().map((f) => [f.start, f]));
      const uniqueEdges = [...new Map(edges.map((e) => [`${e.from}>${e.to}`, e])).values()]
        .filter((e) => seen.has(Number(e.from)) && seen.has(Number(e.to)));
      return {
        root: { name: fnName(d, root), address: hex(root.start) },
        nodes: [...seen].map(([start, depth]) => ({
          name: fnName(d, byStart.get(start)!),
          address: hex(start),
          depth,
        })),
        edges: uniqueEdges,
        ...(truncated ? { truncated: true } : {}),
      };
    }),
    impl(listStrings, (args) => {
      const d = db();
      const re = compileFilter(args.filter);
      const min = args.min_length ?? 4;
      const enc = args.encoding ?? "any";
      const kept = analysisOf(d).strings().filter((s) =>
        s.text.length >= min &&
        (enc === "any" ||
          (enc === "utf16" ? s.encoding === "utf16le" : s.encoding !== "utf16le")) &&
        (args.section === undefined || s.section === args.section) &&
        (!re || re.test(s.text))
      );
      return pageOf(kept, args, (s) => ({
        address: hex(s.address),
        length: s.text.length,
        encoding: s.encoding === "utf16le" ? "utf16" : s.encoding,
        ...(s.section ? { section: s.section } : {}),
        text: s.text,
      }));
    }),
  ];
}
