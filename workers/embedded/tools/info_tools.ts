/** Embedded handlers: database information. */
import { getDatabaseInfo } from "../../../src/protocol/catalog/info.ts";
import { type AnalysisStatus, impl, type ToolImpl } from "../../backend.ts";
import type { DbAccess } from "../db.ts";

/** The info tools over `db`. */
export function infoTools(db: DbAccess, status: () => AnalysisStatus): ToolImpl[] {
  return [
    impl(getDatabaseInfo, () => {
      const d = db();
      const s = status();
      return {
        path: d.path,
        name: d.name,
        backend: "embedded",
        format: d.header.format,
        arch: "unknown",
        bits: d.header.bits,
        endian: d.header.endian,
        image_base: "0x0",
        size: d.bytes.length,
        sha256: d.sha256,
        analysis: {
          state: s.state === "failed"
            ? "failed" as const
            : s.state === "ready"
            ? "ready" as const
            : "analysing" as const,
          ...(s.seconds !== undefined ? { seconds: s.seconds } : {}),
        },
        details: {},
      };
    }),
  ];
}
