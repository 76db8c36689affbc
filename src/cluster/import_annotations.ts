/**
 * `--import-annotations`: applies the export_annotations documents that come back with records
 * to the submitter's own store, one file at a time, through the same tools a client would call,
 * so a cluster renaming pass lands where the user works.
 */
import type { Config } from "../config.ts";
import { createLogger, stderrSink } from "../log.ts";
import { resultValue } from "../protocol/results.ts";
import { createSupervisor } from "../supervisor/create.ts";
import type { CallContext } from "../supervisor/host.ts";
import type { Supervisor } from "../supervisor/supervisor.ts";

/** Queues documents and applies them in order. */
export interface AnnotationImporter {
  add(path: string, document: string): void;
  /** Waits for every document; resolves to a summary line. */
  finish(): Promise<string>;
}

/** An importer into the store of `config` (the submitter's REMCP_STATE_DIR). */
export function createAnnotationImporter(config: Config): AnnotationImporter {
  let sup: Supervisor | undefined;
  let chain = Promise.resolve();
  let files = 0;
  let applied = 0;
  let skipped = 0;
  const failures: string[] = [];
  const ctx: CallContext = {
    session: "run-import",
    signal: new AbortController().signal,
    progress: () => {},
    via: "client",
  };
  const apply = async (path: string, document: string) => {
    sup ??= createSupervisor(
      { ...config, logLevel: config.logLevel === "info" ? "warn" : config.logLevel },
      createLogger("run", stderrSink(config.logLevel, config.logDir, "run")),
    );
    const o = await sup.callTool("open_database", { path }, ctx);
    const database = String(resultValue(o, "open_database").database);
    try {
      // Names attach to functions the analysis finds: let it finish first.
      const w = await sup.callTool("wait_for_analysis", { database, timeout: 3600 }, ctx);
      resultValue(w, "wait_for_analysis");
      const r = await sup.callTool("import_annotations", { database, document }, ctx);
      const counts = resultValue(r, "import_annotations");
      files++;
      applied += Number(counts.applied);
      skipped += Number(counts.skipped);
    } finally {
      await sup.callTool("close_database", { database, force: true }, ctx).catch(() => {});
    }
  };
  return {
    add(path, document) {
      chain = chain.then(() => apply(path, document)).catch((err) => {
        failures.push(`${path}: ${(err as Error).message}`);
      });
    },
    async finish() {
      await chain;
      await sup?.shutdown();
      return `imported annotations into ${files} file(s): ${applied} applied, ${skipped} skipped` +
        (failures.length ? `; failed for ${failures.length}: ${failures.join("; ")}` : "");
    },
  };
}
