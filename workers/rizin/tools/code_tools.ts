/** Rizin handlers: linear disassembly (`pdj`) and immediate search. */
import { z } from "zod";
import { RemcpError } from "../../../src/errors.ts";
import { disassemble } from "../../../src/protocol/catalog/disasm.ts";
import { searchImmediate } from "../../../src/protocol/catalog/search.ts";
import { hex, pageOf } from "../../../src/protocol/paging.ts";
import { impl, type ToolImpl } from "../../backend.ts";
import { parseInteger } from "../../shared/values.ts";
import { type DbAccess, resolveMapped, type RizinDb } from "../db.ts";
import type { Model } from "../model.ts";
import { addr } from "../quote.ts";
import { parseRz, RzOp } from "../rz_json.ts";
import type { Conn } from "../session.ts";
import { withRizin } from "./_common.ts";
import { searchRange } from "./search_tools.ts";

/** One instruction as rizin's `pdj` gives it. */
export type Op = z.output<typeof RzOp>;

/** Most hits search_immediate collects. */
const MAX_IMM_HITS = 10_000;

/** `pdj count @ a`, checked: rizin answers an unmapped address with `invalid` rows. */
export async function ops(c: Conn, a: number, count: number): Promise<Op[]> {
  const cmd = `pdj ${count} @ ${addr(a)}`;
  return parseRz(z.array(RzOp), await c.json(cmd, []), cmd);
}

/** Whether rizin could not decode the instruction. */
export function invalid(op: Op): boolean {
  return op.type === "invalid" || op.opcode === "invalid" || op.opcode === undefined;
}

/** An instruction row as results show it. */
export function row(m: Model, d: RizinDb, op: Op) {
  const text = op.opcode ?? "invalid";
  const sp = text.indexOf(" ");
  const branch = /jmp|call/.test(op.type ?? "");
  const target = branch && op.jump !== undefined && op.jump !== null ? op.jump : undefined;
  const ref = !branch && op.ptr !== undefined && op.ptr !== null && m.isMapped(op.ptr)
    ? op.ptr
    : undefined;
  const comment = d.store.get("comment", op.offset);
  const targetName = target !== undefined ? m.nameAt(target) ?? m.label(target) : undefined;
  const refName = ref !== undefined ? m.nameAt(ref) ?? m.label(ref) : undefined;
  return {
    address: hex(op.offset),
    bytes: op.bytes ?? "",
    mnemonic: sp === -1 ? text : text.slice(0, sp),
    operands: sp === -1 ? "" : text.slice(sp + 1),
    ...(target !== undefined ? { target: hex(target) } : {}),
    ...(targetName ? { target_name: targetName } : {}),
    ...(ref !== undefined ? { ref: hex(ref) } : {}),
    ...(refName ? { ref_name: refName } : {}),
    ...(comment ? { comment } : {}),
  };
}

/** The code tools over `db`. */
export function codeTools(db: DbAccess): ToolImpl[] {
  return [
    impl(disassemble, (args) =>
      withRizin(db, async (c, m, d) => {
        const a = resolveMapped(m, args.address, d.name);
        const list = await ops(c, a, args.count ?? 50);
        const first = list[0];
        if (!first || invalid(first)) {
          throw new RemcpError(
            "InvalidAddress",
            `rizin cannot decode an instruction at ${hex(a)}: it is unmapped or not code`,
            { address: hex(a) },
          );
        }
        // Stop before the first undecodable instruction (unmapped tail or data).
        const cut = list.findIndex(invalid);
        const good = cut === -1 ? list : list.slice(0, cut);
        const last = good[good.length - 1]!;
        const next = last.offset + (last.size ?? 1);
        const sec = m.sectionAt(a);
        return {
          address: hex(a),
          items: good.map((op) => row(m, d, op)),
          ...(m.isMapped(next) ? { next_address: hex(next) } : {}),
          ...(sec && sec.kind !== "code"
            ? {
              warnings: [{
                code: "not_code",
                message: `${hex(a)} is in ${sec.name}, a ${sec.kind} section: this may be data`,
              }],
            }
            : {}),
        };
      })),
    impl(searchImmediate, (args) =>
      withRizin(db, async (c, m) => {
        const value = parseInteger(args.value);
        const { start, end } = searchRange(m, args);
        const u = BigInt.asUintN(64, BigInt(value));
        const matches = (x: number | null | undefined) =>
          x !== undefined && x !== null &&
          (x === value || BigInt.asUintN(64, BigInt(x)) === u ||
            (value >= -0x80000000 && value <= 0xffffffff && (x >>> 0) === (value >>> 0)));
        const textHas = (t: string) =>
          (t.match(/\b(0x[0-9a-f]+|\d+)\b/gi) ?? []).some((n) => {
            const x = Number(n);
            return Number.isSafeInteger(x) && matches(x);
          });
        const hits: { address: number; text: string }[] = [];
        for (const sec of m.st.sections) {
          if (sec.kind !== "code" || hits.length >= MAX_IMM_HITS) continue;
          const lo = Math.max(sec.start, start);
          const hi = Math.min(sec.end, end);
          for (let at = lo; at < hi && hits.length < MAX_IMM_HITS;) {
            const batch = await ops(c, at, 2000);
            if (batch.length === 0) break;
            let moved = false;
            for (const op of batch) {
              if (op.offset >= hi) break;
              const text = op.opcode ?? "";
              if (!invalid(op) && (matches(op.val) || matches(op.ptr) || textHas(text))) {
                hits.push({ address: op.offset, text });
              }
              at = op.offset + Math.max(op.size ?? 1, 1);
              moved = true;
            }
            if (!moved) break;
          }
        }
        return pageOf(hits, args, (h) => {
          const label = m.label(h.address);
          return {
            address: hex(h.address),
            section: m.sectionAt(h.address)?.name ?? "",
            ...(label ? { function: label } : {}),
            instruction: h.text,
          };
        });
      })),
  ];
}
