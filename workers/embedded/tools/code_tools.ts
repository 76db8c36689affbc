/** Embedded handlers: linear disassembly and immediate search. */
import { disassemble } from "../../../src/protocol/catalog/disasm.ts";
import { searchImmediate } from "../../../src/protocol/catalog/search.ts";
import { hex, pageOf } from "../../../src/protocol/paging.ts";
import { impl, type ToolImpl } from "../../backend.ts";
import { parseInteger } from "../../shared/values.ts";
import { type DbAccess, type EmbeddedDb, labelOf, resolveMapped, unmapped } from "../db.ts";
import { searchRange } from "./search_tools.ts";
import type { RowNamer } from "../code.ts";

/** Most hits search_immediate collects. */
const MAX_IMM_HITS = 10_000;

/** Names and comments for instruction rows. */
export function rowNamer(d: EmbeddedDb): RowNamer {
  return {
    label: (a) => labelOf(d, a),
    data: (a) => d.names.containing(a),
    comment: (a) => d.store.get("comment", a),
  };
}

/** The code tools over `db`. */
export function codeTools(db: DbAccess): ToolImpl[] {
  return [
    impl(disassemble, async (args) => {
      const d = db();
      const addr = resolveMapped(d, args.address);
      const sec = d.image.sectionAt(addr);
      const insns = await d.code.decodeAt(addr, args.count ?? 50);
      if (insns.length === 0) throw unmapped(d, addr);
      const items = await d.code.rows(insns, rowNamer(d));
      const last = insns[insns.length - 1]!;
      const next = last.address + last.size;
      const out: Record<string, unknown> = {
        address: hex(addr),
        items,
        ...(d.image.isMapped(next) ? { next_address: hex(next) } : {}),
      };
      if (sec && sec.kind !== "code") {
        out.warnings = [{
          code: "not_code",
          message: `${hex(addr)} is in ${sec.name}, a ${sec.kind} section: this may be data`,
        }];
      }
      return out as { address: string; items: typeof items };
    }),
    impl(searchImmediate, async (args) => {
      const d = db();
      const value = parseInteger(args.value);
      const { start, end } = searchRange(d, args);
      const hits: { address: number; text: string }[] = [];
      const u32 = value >>> 0;
      const matches = (x: number | undefined) =>
        x !== undefined &&
        (x === value || (value >= -0x80000000 && value <= 0xffffffff && (x >>> 0) === u32));
      for (const sec of d.image.sections) {
        if (sec.kind !== "code" || hits.length >= MAX_IMM_HITS) continue;
        const lo = Math.max(sec.start, start);
        const hi = Math.min(sec.end, end);
        if (hi <= lo) continue;
        const decoder = await d.code.decoder(lo);
        // Decode in windows so huge sections do not hold every instruction object at once.
        for (let at = lo; at < hi && hits.length < MAX_IMM_HITS;) {
          const bytes = d.image.readUpTo(at, Math.min(hi - at, 64 * 1024));
          if (bytes.length === 0) break;
          const insns = decoder.decode(bytes, at, { detail: true });
          if (insns.length === 0) break;
          for (const insn of insns) {
            if (insn.operands.some((o) => matches(o.imm) || matches(o.disp))) {
              const t = decoder.format(d.image.readUpTo(insn.address, 16), insn.address, insn);
              hits.push({ address: insn.address, text: `${t.mnemonic} ${t.opStr}`.trim() });
            }
          }
          const last = insns[insns.length - 1]!;
          // The window may end mid-instruction: resume after the last whole one.
          at = last.address + last.size;
        }
      }
      return pageOf(hits, args, (h) => {
        const label = labelOf(d, h.address);
        return {
          address: hex(h.address),
          section: d.image.sectionAt(h.address)?.name ?? "",
          ...(label ? { function: label } : {}),
          instruction: h.text,
        };
      });
    }),
  ];
}
