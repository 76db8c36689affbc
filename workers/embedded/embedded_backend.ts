/**
 * The embedded backend: pure TypeScript + WebAssembly, works with nothing installed. Loads and
 * parses the file, then analyses in the background while the worker already answers `_status`
 * and the tools that need no analysis.
 */
import { basename } from "node:path";
import { createHash } from "node:crypto";
import { RemcpError, toErrorPayload } from "../../src/errors.ts";
import type { AnalysisStatus, Backend, ToolImpl } from "../backend.ts";
import type { BackendEnv } from "../backend.ts";
import type { EmbeddedDb } from "./db.ts";
import { openImage } from "./formats/open_image.ts";
import type { BinaryImage, OpenOptions } from "./formats/image.ts";
import { NameIndex } from "./names.ts";
import { infoTools } from "./tools/info_tools.ts";
import { symbolTools } from "./tools/symbol_tools.ts";
import { dataTools } from "./tools/data_tools.ts";
import { searchTools } from "./tools/search_tools.ts";
import { annotationTools } from "./tools/annotation_tools.ts";
import { codeTools } from "./tools/code_tools.ts";
import { CodeView } from "./code.ts";
import { functionTools } from "./tools/function_tools.ts";
import { localTools } from "./tools/local_tools.ts";
import { xrefTools } from "./tools/xref_tools.ts";
import { featureTools } from "./tools/feature_tools.ts";
import { analyze } from "./analysis/analyze.ts";
import type { Analysis } from "./analysis/analysis.ts";
import { CACHE_FORMAT, deserializeAnalysis, serializeAnalysis } from "./analysis/serialize.ts";
import { ANALYSIS_VERSION } from "./analysis/types.ts";
import { fnName } from "./db.ts";
import { AnnotationStore } from "../shared/store/store.ts";
import { join } from "node:path";
import { sha256File } from "../shared/sha256.ts";
import { FileSource } from "./file_source.ts";

/** Opens `path` with the embedded engine; returns at once, loading continues in the background. */
export function openEmbedded(
  path: string,
  options: Record<string, unknown>,
  env: BackendEnv,
): Backend {
  const e = createEmbedded(env);
  e.open(path, options);
  return e.backend;
}

/**
 * A file over REMCP_MAX_FILE_MB (its size on disk) is refused before it is hashed or read: a
 * guard against opening a disk image or a core dump by mistake. What the backend holds in memory
 * is bounded apart, by REMCP_MAX_HELD_MB (see FileSource).
 */
function refuseLargeFile(path: string, size: number, maxMb: number): void {
  if (maxMb === 0 || size <= maxMb * 1024 * 1024) return;
  throw new RemcpError(
    "OpenFailed",
    `${path} is ${Math.ceil(size / 1024 / 1024)} MiB, over the ${maxMb} MiB limit of the ` +
      "embedded backend on a file's size (REMCP_MAX_FILE_MB): raise REMCP_MAX_FILE_MB or use " +
      "another backend",
    { path, size, max_file_mb: maxMb },
  );
}

/**
 * An embedded backend with no file yet (a standby worker waits like this so that opening costs
 * no process start), and the call that gives it its file.
 */
export function createEmbedded(
  env: BackendEnv,
): { backend: Backend; open(path: string, options: Record<string, unknown>): void } {
  let started = performance.now();
  let status: AnalysisStatus = { state: "loading", message: "waiting for a file" };
  let db: EmbeddedDb | undefined;
  /** The file, which the image reads on demand (a raw blob, debug sections) until closed. */
  let file: FileSource | undefined;
  const seconds = () => Math.round((performance.now() - started) / 10) / 100;

  const load = async (path: string, options: Record<string, unknown>) => {
    try {
      const before = await Deno.stat(path);
      refuseLargeFile(path, before.size, env.config.maxFileMb);
      const sha256 = await sha256File(path);
      file = FileSource.open(path, { maxHeldMb: env.config.maxHeldMb });
      const image = readImage(file, imageOptions(options), before);
      const names = new NameIndex(image);
      const store = AnnotationStore.open(storePath(env.config.stateDir, sha256, options));
      for (const notice of store.notices) env.log.warn(notice);
      store.setMeta("path", path);
      store.setMeta("sha256", sha256);
      for (const [address, name] of store.all("name")) names.setUserName(address, name);
      const code = new CodeView(image);
      db = { path, name: basename(path), sha256, options, image, names, store, code };
      env.log.info(`loaded ${path}`, {
        format: image.format,
        arch: image.arch,
        seconds: seconds(),
      });
      // A debugging aid (documented in the README): hold the database in "analysing" so the
      // Busy path can be exercised against a real worker.
      const delay = Number(Deno.env.get("REMCP_DEBUG_ANALYSIS_DELAY_MS") ?? 0);
      if (delay > 0) {
        status = { state: "analysing", progress: 0, message: "delayed for debugging" };
        await new Promise((r) => setTimeout(r, delay));
      }
      status = { state: "analysing", progress: 0, message: "analysing" };
      const t0 = performance.now();
      // The file is open: an analysis that fails or overruns leaves the format, data and
      // disassembly tools working and says so, instead of failing the open.
      const budget = AbortSignal.timeout(env.config.analysisTimeoutS * 1000);
      // The deadline is also checked inside long synchronous stretches, where the signal's
      // timer cannot fire.
      const deadline = performance.now() + env.config.analysisTimeoutS * 1000;
      try {
        const { analysis, cached, id } = await loadOrAnalyze(db, budget, deadline, (p, m) => {
          status = { state: "analysing", progress: p, message: m };
        });
        db.analysisInfo = { cached, seconds: Math.round(performance.now() - t0) / 1000, id };
        attachAnalysis(db, analysis);
        env.log.info(`analysed ${path}`, {
          functions: analysis.functions().length,
          seconds: seconds(),
        });
      } catch (err) {
        const why = budget.aborted || (err instanceof Error && err.name === "TimeoutError")
          ? `it did not finish within REMCP_ANALYSIS_TIMEOUT (${env.config.analysisTimeoutS} s)`
          : `it failed: ${err instanceof Error ? err.message : String(err)}`;
        db.analysisError = `Analysis of ${db.name} stopped because ${why}; format, data, search ` +
          `and disassemble tools still work`;
        env.log.warn(db.analysisError);
      }
      status = { state: "ready", seconds: seconds() };
    } catch (err) {
      const payload = toErrorPayload(
        err instanceof RemcpError
          ? err
          : new RemcpError("OpenFailed", `Cannot open ${path}: ${(err as Error).message}`, {
            path,
          }),
      );
      status = { state: "failed", error: payload, seconds: seconds() };
      env.log.warn(`open failed: ${payload.error}`);
    }
  };
  const need = (): EmbeddedDb => {
    if (!db) {
      throw new RemcpError("Busy", "The database is still loading: call wait_for_analysis", {});
    }
    return db;
  };
  const backend: Backend = {
    name: "embedded",
    status: () => status,
    tools: (): ToolImpl[] => [
      ...infoTools(need, () => status),
      ...symbolTools(need),
      ...dataTools(need),
      ...searchTools(need),
      ...annotationTools(need),
      ...codeTools(need),
      ...functionTools(need),
      ...localTools(need),
      ...xrefTools(need),
      ...featureTools(need),
    ],
    save: () => {
      if (!db) return Promise.resolve({ saved: false });
      db.store.checkpoint();
      return Promise.resolve({ saved: true, path: db.store.path });
    },
    close: async () => {
      db?.store.close();
      file?.close();
      await db?.code.dispose();
    },
  };
  let opened = false;
  return {
    backend,
    open(path, options) {
      if (opened) throw new RemcpError("InvalidArgument", "This worker already has a file", {});
      opened = true;
      started = performance.now();
      status = { state: "loading", message: "reading file" };
      void load(path, options);
    },
  };
}

/**
 * Parses the file of `source`, reading only the ranges the parser asks for, then closes it (what
 * the image reads later opens it again). The file was hashed before; a file that changed since
 * `before` (size or modification time) would pair that hash with other bytes.
 */
function readImage(source: FileSource, options: OpenOptions, before: Deno.FileInfo) {
  const path = source.path;
  let image: BinaryImage;
  try {
    image = openImage(source, options);
  } finally {
    source.close();
  }
  const after = Deno.statSync(path);
  if (after.size !== before.size || after.mtime?.getTime() !== before.mtime?.getTime()) {
    throw new RemcpError(
      "OpenFailed",
      `${path} changed while it was being opened: open it again once it is complete`,
      { path },
    );
  }
  return image;
}

function imageOptions(options: Record<string, unknown>): OpenOptions {
  const out: OpenOptions = {};
  if (options.arch !== undefined) {
    if (typeof options.arch !== "string") {
      throw new RemcpError("InvalidArgument", 'options.arch must be a string like "x86_64"', {
        param: "options.arch",
      });
    }
    out.arch = options.arch;
  }
  if (options.base !== undefined) {
    const base = typeof options.base === "string" ? Number(options.base) : options.base;
    if (typeof base !== "number" || !Number.isSafeInteger(base) || base < 0) {
      throw new RemcpError("InvalidArgument", "options.base must be an address like 0x400000", {
        param: "options.base",
      });
    }
    out.base = base;
  }
  if (options.raw !== undefined) out.raw = options.raw === true;
  return out;
}

/** The store of a file: keyed by its SHA-256, plus the options that change what is analysed. */
export function storePath(
  stateDir: string,
  sha256: string,
  options: Record<string, unknown>,
): string {
  const parts = ["arch", "base", "raw"].filter((k) => options[k] !== undefined)
    .map((k) => `${k}-${String(options[k]).replace(/[^A-Za-z0-9_]/g, "")}`);
  const suffix = parts.length > 0 ? `-${parts.join("-")}` : "";
  return join(stateDir, "databases", `${sha256}${suffix}.sqlite`);
}

// The data's version and the byte layout's: a change of either misses the old entry, which
// the next save drops.
const CACHE_KEY = `analysis:v${ANALYSIS_VERSION}.${CACHE_FORMAT}`;

/** The cached analysis when there is a usable one, else a fresh analysis (then cached). */
async function loadOrAnalyze(
  db: EmbeddedDb,
  signal: AbortSignal,
  deadline: number,
  onProgress: (fraction: number, message: string) => void,
): Promise<{ analysis: Analysis; cached: boolean; id: string }> {
  const cached = db.store.loadCache(CACHE_KEY);
  if (cached) {
    try {
      return {
        analysis: deserializeAnalysis(cached, db.image),
        cached: true,
        id: analysisId(cached),
      };
    } catch {
      // An unreadable or outdated cache is just analysed again.
    }
  }
  // ARM: the main decoder is A32 whatever the entry's mode; Thumb code has its own.
  const decoder = db.image.arch === "arm"
    ? await db.code.modeDecoder(false)
    : await db.code.decoder(db.image.entry ?? db.image.imageBase);
  const thumbDecoder = db.image.arch === "arm" ? await db.code.thumbDecoder() : undefined;
  const analysis = await analyze(db.image, decoder, {
    onProgress,
    signal,
    deadline,
    ...(thumbDecoder ? { thumbDecoder } : {}),
  });
  const blob = serializeAnalysis(analysis);
  try {
    db.store.saveCache(CACHE_KEY, blob);
    db.store.dropCache("analysis:", CACHE_KEY);
  } catch {
    // The cache is an optimisation: a full disk must not fail the open.
  }
  return { analysis, cached: false, id: analysisId(blob) };
}

/**
 * What identifies an analysis: the hash of its cached form, so a reopen that loads the cache
 * gets the same id and a fresh analysis (its header holds its time) a new one. Caches derived
 * from the analysis (diffing features) are keyed by it.
 */
function analysisId(blob: Uint8Array): string {
  return createHash("sha256").update(blob).digest("hex").slice(0, 32);
}

/** Wires the analysis into names and the function lookups annotations use. */
function attachAnalysis(db: EmbeddedDb, analysis: Analysis): void {
  db.analysis = analysis;
  if (analysis.data.armModes !== undefined) db.code.useModes(analysis.data.armModes);
  db.names.attachAnalysis(analysis);
  db.functionOf = (a) => {
    const fn = analysis.functionAt(a);
    return fn ? fnName(db, fn) : undefined;
  };
  db.functionStart = (a) => analysis.functionAt(a)?.start;
  db.defaultName = (a) => analysis.nameAt(a);
}
