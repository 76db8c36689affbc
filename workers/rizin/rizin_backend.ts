/**
 * The rizin backend: drives `rizin -q0 FILE` through {@link RizinSession}, keeps user
 * annotations in remcp's own store (so they survive rizin restarts and reopens) and replays them
 * into rizin after each analysis.
 */
import { basename, join, resolve as resolvePath } from "node:path";
import { RemcpError } from "../../src/errors.ts";
import type { AnalysisStatus, Backend, ToolImpl } from "../backend.ts";
import type { BackendEnv } from "../backend.ts";
import { AnnotationStore } from "../shared/store/store.ts";
import { findRizin, INSTALL_HINT, probeVersion, supported } from "../../src/probes/rizin.ts";
import { type AnalysisFacts, Model, readAnalysis, readStatic, type StaticFacts } from "./model.ts";
import { type AnalysisLevel, RizinSession } from "./session.ts";
import type { RizinDb } from "./db.ts";
import { recoverMain } from "./recover_main.ts";
import { replayAnnotations } from "./replay.ts";
import { infoTools } from "./tools/info_tools.ts";
import { symbolTools } from "./tools/symbol_tools.ts";
import { dataTools } from "./tools/data_tools.ts";
import { searchTools } from "./tools/search_tools.ts";
import { codeTools } from "./tools/code_tools.ts";
import { functionTools } from "./tools/function_tools.ts";
import { xrefTools } from "./tools/xref_tools.ts";
import { annotationTools } from "./tools/annotation_tools.ts";
import { scriptTools } from "./tools/script_tools.ts";
import { sha256File } from "../shared/sha256.ts";

/** Default timeout of one rizin command (REMCP_RIZIN_TIMEOUT_MS overrides it). */
const DEFAULT_TIMEOUT_MS = 120_000;

/** Opens `path` in rizin; returns at once, rizin loads and analyses in the background. */
export function openRizin(
  path: string,
  options: Record<string, unknown>,
  env: BackendEnv,
  vars: Record<string, string | undefined> = Deno.env.toObject(),
): Backend {
  try {
    return start(path, options, env, vars);
  } catch (err) {
    // A worker that cannot start rizin still answers: every call says why.
    const e = err instanceof RemcpError
      ? err
      : new RemcpError("OpenFailed", `Cannot open ${path}: ${(err as Error).message}`, { path });
    const status: AnalysisStatus = {
      state: "failed",
      error: { error: e.message, error_type: e.code, detail: e.detail },
    };
    return {
      name: "rizin",
      status: () => status,
      // Listed so that calls fail with the reason (the server checks status first).
      tools: () =>
        toolsOver(() => {
          throw e;
        }, scriptsAllowed(env, vars)),
      save: () => Promise.resolve({ saved: false }),
      close: () => Promise.resolve(),
    };
  }
}

function start(
  path: string,
  options: Record<string, unknown>,
  env: BackendEnv,
  vars: Record<string, string | undefined>,
): Backend {
  const binary = findRizin(env.config.rizinPath, vars);
  if (!binary) {
    throw new RemcpError("Unavailable", `rizin is not installed: ${INSTALL_HINT}`, {
      backend: "rizin",
    });
  }
  const probed = probeVersion(binary);
  if (!probed.version) {
    throw new RemcpError("Unavailable", `${probed.error}: ${INSTALL_HINT}`, { backend: "rizin" });
  }
  const version = probed.version;
  if (!supported(version)) {
    throw new RemcpError("Unavailable", `rizin ${version.text} is too old: ${INSTALL_HINT}`, {
      backend: "rizin",
      version: version.text,
    });
  }
  const analysis = analysisLevel(options);
  const timeoutMs = positiveInt(vars.REMCP_RIZIN_TIMEOUT_MS) ?? DEFAULT_TIMEOUT_MS;
  const analysisTimeoutMs = Math.max(env.config.callTimeoutS * 1000, timeoutMs);
  const abs = resolvePath(path);

  let db: RizinDb | undefined;
  let failed: AnalysisStatus | undefined;
  let statics: StaticFacts | undefined;
  let facts: AnalysisFacts | undefined;
  let model: { generation: number; model: Model } | undefined;
  let main: number | undefined;

  const store = { current: undefined as AnnotationStore | undefined };
  const session = new RizinSession({
    binary,
    path: abs,
    version,
    timeoutMs,
    analysisTimeoutMs,
    analysis,
    log: env.log,
    extraArgs: rawArgs(options),
    beforeAnalysis: async (c) => {
      model = undefined;
      facts = undefined;
      statics = await readStatic(c);
    },
    prepare: async (c) => {
      if (!statics || !store.current) throw new Error("prepare before open");
      main = await recoverMain(c, statics, env.log);
      await replayAnnotations(c, store.current, env.log);
      facts = await readAnalysis(c, main);
    },
  });

  const open = async () => {
    try {
      const size = (await Deno.stat(abs)).size;
      const sha256 = await sha256File(abs);
      const s = AnnotationStore.open(storePath(env.config.stateDir, sha256, options));
      s.setMeta("path", abs);
      s.setMeta("sha256", sha256);
      store.current = s;
      const refresh = async (c: Parameters<RizinDb["model"]>[0]) => {
        facts = await readAnalysis(c, main);
        model = { generation: session.generation, model: new Model(statics!, facts, s) };
        return model.model;
      };
      db = {
        path: abs,
        name: basename(abs),
        sha256,
        size,
        options,
        version,
        store: s,
        session,
        staticFacts: () => statics,
        analysisFacts: () => facts,
        model: (c) => {
          if (model && model.generation === session.generation) return Promise.resolve(model.model);
          if (!statics || !facts) return refresh(c);
          model = { generation: session.generation, model: new Model(statics, facts, s) };
          return Promise.resolve(model.model);
        },
        refresh,
      };
      await session.start();
    } catch (err) {
      const e = err instanceof RemcpError
        ? err
        : new RemcpError("OpenFailed", `Cannot open ${path}: ${(err as Error).message}`, { path });
      failed = {
        state: "failed",
        error: { error: e.message, error_type: e.code, detail: e.detail },
      };
    }
  };
  void open();

  const need = (): RizinDb => {
    if (!db) {
      throw new RemcpError("Busy", "The database is still loading: call wait_for_analysis", {});
    }
    return db;
  };
  return {
    name: "rizin",
    status: () => failed ?? session.status,
    tools: () => toolsOver(need, scriptsAllowed(env, vars)),
    save: () => {
      if (!store.current) return Promise.resolve({ saved: false });
      store.current.checkpoint();
      return Promise.resolve({ saved: true, path: store.current.path });
    },
    close: async () => {
      await session.close();
      store.current?.close();
    },
  };
}

/** Every rizin tool over `need`; raw commands only with --allow-scripts. */
function toolsOver(need: () => RizinDb, allowScripts: boolean): ToolImpl[] {
  return [
    ...infoTools(need),
    ...symbolTools(need),
    ...dataTools(need),
    ...searchTools(need),
    ...codeTools(need),
    ...functionTools(need),
    ...xrefTools(need),
    ...annotationTools(need),
    ...(allowScripts ? scriptTools(need) : []),
  ];
}

// Workers read REMCP_ALLOW_SCRIPTS themselves; the supervisor gates listing and calls too.
function scriptsAllowed(env: BackendEnv, vars: Record<string, string | undefined>): boolean {
  return env.config.allowScripts ||
    !["", "0", "false", "no", "off"].includes((vars.REMCP_ALLOW_SCRIPTS ?? "").toLowerCase());
}

function analysisLevel(options: Record<string, unknown>): AnalysisLevel {
  const v = options.analysis ?? "aaa";
  if (v === "none" || v === "aa" || v === "aaa" || v === "aaaa") return v;
  throw new RemcpError(
    "InvalidArgument",
    `options.analysis must be "none", "aa", "aaa" or "aaaa", not ${JSON.stringify(v)}`,
    { param: "options.analysis" },
  );
}

// Raw blobs: rizin needs the architecture, bits and load address on its command line.
function rawArgs(options: Record<string, unknown>): string[] {
  const out: string[] = [];
  if (options.arch !== undefined) {
    const m = /^(x86_64|x86|i386|aarch64|arm64|arm|thumb|mips|mips64|ppc|ppc64|riscv64|riscv32)$/
      .exec(String(options.arch));
    if (!m) {
      throw new RemcpError("InvalidArgument", `options.arch "${options.arch}" is not supported`, {
        param: "options.arch",
      });
    }
    const [arch, bits] = ({
      x86_64: ["x86", 64],
      x86: ["x86", 32],
      i386: ["x86", 32],
      aarch64: ["arm", 64],
      arm64: ["arm", 64],
      arm: ["arm", 32],
      thumb: ["arm", 16],
      mips: ["mips", 32],
      mips64: ["mips", 64],
      ppc: ["ppc", 32],
      ppc64: ["ppc", 64],
      riscv64: ["riscv", 64],
      riscv32: ["riscv", 32],
    } as Record<string, [string, number]>)[m[1]!]!;
    out.push("-a", arch, "-b", String(bits));
  }
  if (options.base !== undefined) {
    const base = typeof options.base === "string" ? Number(options.base) : options.base;
    if (typeof base !== "number" || !Number.isSafeInteger(base) || base < 0) {
      throw new RemcpError("InvalidArgument", "options.base must be an address like 0x400000", {
        param: "options.base",
      });
    }
    out.push("-m", "0x" + base.toString(16));
  }
  return out;
}

function positiveInt(v: string | undefined): number | undefined {
  if (!v) return undefined;
  const n = Number(v);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/** The rizin backend's store of a file: its own folder, keyed by SHA-256 and options. */
export function storePath(
  stateDir: string,
  sha256: string,
  options: Record<string, unknown>,
): string {
  const parts = ["arch", "base"].filter((k) => options[k] !== undefined)
    .map((k) => `${k}-${String(options[k]).replace(/[^A-Za-z0-9_]/g, "")}`);
  const suffix = parts.length > 0 ? `-${parts.join("-")}` : "";
  return join(stateDir, "databases", "rizin", `${sha256}${suffix}.sqlite`);
}
