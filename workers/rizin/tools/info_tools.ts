/** Rizin handlers: what the database is and how it is laid out. */
import { RemcpError } from "../../../src/errors.ts";
import {
  getDatabaseInfo,
  listEntryPoints,
  listSections,
  listSegments,
  listTargets,
  resolveAddress,
} from "../../../src/protocol/catalog/info.ts";
import { hex, pageOf, paginate } from "../../../src/protocol/paging.ts";
import { impl, type ToolImpl } from "../../backend.ts";
import { type DbAccess, resolve } from "../db.ts";
import type { Range } from "../model.ts";
import { archName, formatName, withRizin } from "./_common.ts";
import { z } from "zod";

const rangeOut = (s: Range) => ({
  name: s.name,
  start: hex(s.start),
  end: hex(s.end),
  size: s.end - s.start,
  file_offset: hex(s.fileOffset),
  file_size: s.fileSize,
  perms: s.perms,
});

const Plugin = z.object({
  name: z.string(),
  bits: z.union([z.string(), z.array(z.number())]).optional(),
}).loose();

/** The info tools over `db`. */
export function infoTools(db: DbAccess): ToolImpl[] {
  return [
    impl(getDatabaseInfo, () => {
      const d = db();
      const st = d.staticFacts();
      if (!st) {
        throw new RemcpError("Busy", "rizin is still loading the file: call wait_for_analysis", {});
      }
      const s = d.session.status;
      const bin = st.info.bin ?? {};
      const bits = bin.bits ?? 0;
      const entry = st.entries.find((e) => e.type === "program") ?? st.entries[0];
      const facts = d.analysisFacts();
      const details: Record<string, unknown> = { rizin_version: d.version.text };
      const copy = [
        ["interpreter", bin.intrp],
        ["class", bin.class],
        ["os", bin.os],
        ["machine", bin.machine],
        ["language", bin.lang],
        ["compiler", bin.compiler],
        ["stripped", bin.stripped],
        ["static", bin.static],
        ["pic", bin.pic],
        ["canary", bin.canary],
        ["nx", bin.nx],
        ["debug_file", bin.dbg_file],
        ["guid", bin.guid],
        ["subsystem", bin.subsys],
        ["rpath", bin.rpath],
      ] as const;
      for (const [k, v] of copy) if (v !== undefined && v !== null && v !== "") details[k] = v;
      if (facts?.main !== undefined) details.main = hex(facts.main);
      if (d.session.restarts) details.rizin_restarts = d.session.restarts;
      return {
        path: d.path,
        name: d.name,
        backend: "rizin",
        format: formatName(bin.bintype),
        arch: archName(bin.arch ?? "unknown", bits),
        bits,
        endian: /^b/i.test(bin.endian ?? "") ? "big" : "little",
        ...(entry ? { entry: hex(entry.vaddr) } : {}),
        image_base: hex(bin.baddr ?? 0),
        size: d.size,
        sha256: d.sha256,
        analysis: {
          state: s.state === "failed"
            ? "failed" as const
            : s.state === "ready"
            ? "ready" as const
            : "analysing" as const,
          ...(facts ? { functions: facts.functions.length } : {}),
          ...(s.seconds !== undefined ? { seconds: s.seconds } : {}),
        },
        details,
      };
    }, { duringAnalysis: true }),
    impl(listSegments, (args) => withRizin(db, (_c, m) => pageOf(m.st.segments, args, rangeOut))),
    impl(
      listSections,
      (args) =>
        withRizin(
          db,
          (_c, m) =>
            paginate(m.st.sections, args, (s) => s.name, (s) => ({ ...rangeOut(s), kind: s.kind })),
        ),
    ),
    impl(listEntryPoints, (args) =>
      withRizin(db, (_c, m) => {
        const items: { name: string; address: number; kind: string }[] = [];
        for (const e of m.st.entries) {
          const kind = e.type === "program" || !e.type ? "entry" : e.type;
          items.push({
            name: kind === "entry" ? "entry" : `${kind}_${items.length}`,
            address: e.vaddr,
            kind,
          });
        }
        if (m.an.main !== undefined) items.push({ name: "main", address: m.an.main, kind: "main" });
        return pageOf(items, args, (e) => ({
          name: m.nameAt(e.address) ?? e.name,
          address: hex(e.address),
          kind: e.kind,
        }));
      })),
    impl(resolveAddress, (args) =>
      withRizin(db, (_c, m) => {
        const a = resolve(m, args.address);
        const seg = m.segmentAt(a);
        const sec = m.sectionAt(a);
        const near = m.nearest(a);
        const f = m.functionContaining(a);
        const within = sec ?? seg;
        const off = within && a - within.start < within.fileSize
          ? within.fileOffset + (a - within.start)
          : undefined;
        return {
          address: hex(a),
          mapped: m.isMapped(a),
          ...(seg ? { segment: seg.name } : {}),
          ...(sec ? { section: sec.name } : {}),
          ...(off !== undefined ? { file_offset: hex(off) } : {}),
          ...(near ? { symbol: near.name, symbol_offset: near.offset } : {}),
          ...(f ? { function: m.functionName(f), function_start: hex(f.start) } : {}),
        };
      })),
    impl(listTargets, () =>
      withRizin(db, async (c) => {
        const bins = await c.json<unknown[]>("Lij", []);
        const formats = bins.flatMap((b) => {
          const p = Plugin.safeParse(b);
          return p.success ? [p.data.name] : [];
        });
        // Rizin 0.7's `Laj` prints an object inside brackets: repair it before parsing.
        const raw = (await c.must("Laj")).trim();
        let asms: Record<string, unknown> = {};
        try {
          const parsed: unknown = JSON.parse(raw.replace(/^\[(\s*")/, "{$1").replace(/\]$/, "}"));
          if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) {
            asms = parsed as Record<string, unknown>;
          } else if (Array.isArray(parsed)) {
            for (const a of parsed) {
              const p = Plugin.safeParse(a);
              if (p.success) asms[p.data.name] = p.data;
            }
          }
        } catch {
          for (const name of (await c.must("Laq")).split("\n")) {
            if (name.trim()) asms[name.trim()] = {};
          }
        }
        const isas = Object.entries(asms).map(([arch, v]) => {
          const bits = (v as { bits?: unknown }).bits;
          const list = typeof bits === "string"
            ? bits.split(/[\s,]+/).filter(Boolean)
            : Array.isArray(bits)
            ? bits.map(String)
            : [];
          return { arch, modes: list.map((b) => `${b}-bit`), engine: "rizin" };
        });
        return { formats, isas };
      })),
  ];
}
