/** Embedded handler: per-function diffing features, computed from the analysis in one pass. */
import { RemcpError } from "../../../src/errors.ts";
import { functionFeatures } from "../../../src/protocol/catalog/features.ts";
import { hex, pageOf } from "../../../src/protocol/paging.ts";
import { compileFilter } from "../../../src/protocol/pattern.ts";
import { computeFeatures, type FunctionFeatures } from "../../../src/diff/features.ts";
import { encodeRows, featureRowsSpec, ROW_LAYOUT } from "../../../src/diff/feature_rows.ts";
import { impl, type ToolImpl } from "../../backend.ts";
import { analysisOf, type DbAccess, type EmbeddedDb, fnName } from "../db.ts";
import type { FunctionInfo } from "../analysis/types.ts";
import { functionRow, instructionsOf } from "./function_tools.ts";

/** Below this an immediate is a small number, not an absolute address (PIE images start at 0). */
const MIN_ADDRESS = 0x10000;

async function featuresOf(d: EmbeddedDb, fn: FunctionInfo): Promise<FunctionFeatures> {
  const a = analysisOf(d);
  const insns = await instructionsOf(d, fn, { text: true });
  const starts = new Set(fn.blocks.map((b) => b.start));
  return computeFeatures({
    name: fnName(d, fn),
    start: fn.start,
    end: fn.end,
    size: functionRow(d, fn).size,
    insns: insns.map((i) => ({
      address: i.address,
      bytes: d.image.readUpTo(i.address, i.size),
      mnemonic: i.mnemonic ?? "",
      operands: i.opStr ?? "",
      target: i.target,
      ref: i.memRef,
    })),
    blocks: fn.blocks,
    edges: fn.edges.filter((e) => e.kind !== "tail" && starts.has(e.to)),
    // As function_summary lists them (imports are matched by name, not through the graph).
    callees: a.callees(fn).filter((f) => !f.flags.includes("import")).map((f) => f.start),
    strings: a.stringsOf(fn).map((s) => s.text),
    imports: a.importsOf(fn).map((f) => f.name),
  }, (v) => v >= MIN_ADDRESS && d.image.isMapped(v));
}

/**
 * The feature tools over `db`: function_features in pages for clients, and all of them at once
 * for diff_databases; features are computed once per function and kept.
 */
export function featureTools(db: DbAccess): ToolImpl[] {
  const memo = new WeakMap<FunctionInfo, FunctionFeatures>();
  const featuresFor = async (d: EmbeddedDb, fn: FunctionInfo) => {
    let f = memo.get(fn);
    if (!f) {
      f = await featuresOf(d, fn);
      memo.set(fn, f);
    }
    return f;
  };
  return [
    impl(functionFeatures, async (args, ctx) => {
      const d = db();
      const re = compileFilter(args.filter);
      const fns = analysisOf(d).functions().filter((f) => !re || re.test(fnName(d, f)));
      const page = pageOf(fns, args, (f) => f);
      const items = [];
      for (const fn of page.items) {
        if (ctx.signal.aborted) {
          throw new RemcpError("Cancelled", "function_features was cancelled");
        }
        const f = await featuresFor(d, fn);
        items.push({ ...f, name: fnName(d, fn), start: hex(f.start), callees: f.callees.map(hex) });
      }
      return { ...page, items };
    }),
    impl(featureRowsSpec, async (_args, ctx) => {
      const d = db();
      const fns = analysisOf(d).functions();
      const out: FunctionFeatures[] = [];
      for (const fn of fns) {
        if (ctx.signal.aborted) {
          throw new RemcpError("Cancelled", "_function_features was cancelled");
        }
        // Names as now (a rename since the features were kept shows).
        out.push({ ...await featuresFor(d, fn), name: fnName(d, fn) });
        if (out.length % 1000 === 0) ctx.progress(out.length, fns.length);
      }
      return { functions: out.length, layout: ROW_LAYOUT, rows: encodeRows(out) };
    }, { uncapped: true }),
  ];
}
