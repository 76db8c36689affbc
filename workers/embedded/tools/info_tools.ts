/** Embedded handlers: what the database is and how it is laid out. */
import {
  getDatabaseInfo,
  listEntryPoints,
  listSections,
  listSegments,
  listTargets,
  resolveAddress,
} from "../../../src/protocol/catalog/info.ts";
import { hex, pageOf, paginate } from "../../../src/protocol/paging.ts";
import { type AnalysisStatus, impl, type ToolImpl } from "../../backend.ts";
import { type DbAccess, type EmbeddedDb, resolve } from "../db.ts";
import { supportedTargets } from "../arch/decoder.ts";

/** The info tools over `db`. */
export function infoTools(db: DbAccess, status: () => AnalysisStatus): ToolImpl[] {
  return [
    impl(getDatabaseInfo, () => {
      const d = db();
      const s = status();
      const img = d.image;
      return {
        path: d.path,
        name: d.name,
        backend: "embedded",
        format: img.format,
        arch: img.arch,
        bits: img.bits,
        endian: img.endian,
        ...(img.entry !== undefined ? { entry: hex(img.entry) } : {}),
        image_base: hex(img.imageBase),
        size: d.image.fileSize,
        sha256: d.sha256,
        analysis: {
          state: s.state === "failed" || d.analysisError
            ? "failed" as const
            : s.state === "ready"
            ? "ready" as const
            : "analysing" as const,
          ...(d.analysis ? { functions: d.analysis.functions().length } : {}),
          ...(d.analysisInfo ? d.analysisInfo : {}),
        },
        details: img.info,
        ...warningsOf(d),
      };
    }, { duringAnalysis: true }),
    impl(listSegments, (args) =>
      pageOf(db().image.segments, args, (s) => ({
        name: s.name,
        start: hex(s.start),
        end: hex(s.end),
        size: s.end - s.start,
        file_offset: hex(s.fileOffset),
        file_size: s.fileSize,
        perms: s.perms,
      })), { duringAnalysis: true }),
    impl(listSections, (args) =>
      paginate(db().image.sections, args, (s) => s.name, (s) => ({
        name: s.name,
        start: hex(s.start),
        end: hex(s.end),
        size: s.end - s.start,
        file_offset: hex(s.fileOffset),
        file_size: s.fileSize,
        perms: s.perms,
        kind: s.kind,
      })), { duringAnalysis: true }),
    impl(listEntryPoints, (args) =>
      pageOf(db().image.entryPoints, args, (e) => ({
        name: e.name,
        address: hex(e.address),
        kind: e.kind,
      })), { duringAnalysis: true }),
    impl(resolveAddress, (args) => {
      const d = db();
      const addr = resolve(d, args.address);
      const img = d.image;
      const seg = img.segmentAt(addr);
      const sec = img.sectionAt(addr);
      const off = img.addrToOffset(addr);
      const near = d.names.nearest(addr);
      return {
        address: hex(addr),
        mapped: img.isMapped(addr),
        ...(seg ? { segment: seg.name } : {}),
        ...(sec ? { section: sec.name } : {}),
        ...(off !== undefined ? { file_offset: hex(off) } : {}),
        ...(near ? { symbol: near.name, symbol_offset: near.offset } : {}),
      };
    }, { duringAnalysis: true }),
    impl(listTargets, () => ({
      formats: ["elf", "pe", "macho", "macho-fat", "raw"],
      isas: supportedTargets().map((t) => ({
        arch: t.arch,
        modes: [...t.modes],
        engine: t.engine,
      })),
    }), { duringAnalysis: true }),
  ];
}

/** The database's standing warnings: a failed analysis, a repaired or read-only store. */
function warningsOf(d: EmbeddedDb): { warnings?: { code: string; message: string }[] } {
  const warnings = [
    ...(d.analysisError ? [{ code: "analysis_failed", message: d.analysisError }] : []),
    ...d.store.notices.map((message) => ({ code: "annotation_store", message })),
  ];
  return warnings.length > 0 ? { warnings } : {};
}
