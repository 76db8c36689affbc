/**
 * The backends the supervisor knows about, how to tell whether each is available here, and which
 * tools each implements — without loading any engine.
 */
import { VERSION } from "../config.ts";
import type { Config } from "../config.ts";
import {
  findRizin,
  INSTALL_HINT,
  supported,
  versionFromOutput,
} from "../../workers/rizin/locate.ts";
import { probePython, pythonBackendInfos, TEST_BACKEND } from "./python_workers.ts";
import { runProbe } from "./run_probe.ts";

/** One backend as list_backends reports it. */
export interface BackendInfo {
  name: string;
  available: boolean;
  version?: string | undefined;
  reason?: string | undefined;
  engine: string;
}

const PYTHON_ENGINE_MISSING = [
  "command",
  "command_json",
  "list_targets",
  "read_data",
  "search_bytes",
  "search_text",
  "search_immediate",
  "list_comments",
  "set_function_prototype",
  "add_bookmark",
  "list_bookmarks",
  "undo",
  "redo",
  "list_changes",
  "export_annotations",
  "import_annotations",
  "function_summary",
  "disassemble_function",
  "get_basic_blocks",
  "get_cfg",
  "get_call_graph",
  "find_code_by_string",
] as const;

/** Tools a backend lacks (the rest of the catalog it implements). */
const MISSING: Record<string, readonly string[]> = {
  embedded: ["decompile_function", "command", "command_json"],
  rizin: [],
  // The Python engine adapters implement the tools of workers/python/remcp/generic.py; the
  // worker's own tools/list is checked as well, so this list only words the refusals.
  ghidra: PYTHON_ENGINE_MISSING,
  ida: PYTHON_ENGINE_MISSING,
  binja: [...PYTHON_ENGINE_MISSING, "list_exports"],
};

/** Every backend name remcp knows. */
export const BACKEND_NAMES = Object.keys(MISSING);

/** Whether `backend` implements `tool`. */
export function backendHas(backend: string, tool: string): boolean {
  // The test scaffolding backend has whatever its worker lists (the supervisor checks that too).
  if (backend === TEST_BACKEND) return true;
  const missing = MISSING[backend];
  return missing !== undefined && !missing.includes(tool);
}

/** The backends that implement `tool`. */
export function backendsWith(tool: string): string[] {
  return BACKEND_NAMES.filter((b) => backendHas(b, tool));
}

/** Longest `rizin -v` may take. */
const RIZIN_PROBE_TIMEOUT_MS = 10_000;

/**
 * Rizin: `--rizin PATH` / REMCP_RIZIN, else `rizin` on PATH; available when `rizin -v` prints a
 * version ≥ 0.7.
 */
async function probeRizin(config: Config, env: Record<string, string>): Promise<BackendInfo> {
  const engine = "Rizin through rizin -q0";
  const binary = findRizin(config.rizinPath, env);
  if (!binary) {
    return {
      name: "rizin",
      available: false,
      engine,
      reason: `rizin was not found: ${INSTALL_HINT}`,
    };
  }
  const out = await runProbe(binary, ["-v"], undefined, RIZIN_PROBE_TIMEOUT_MS);
  const { version, error } = out.kind === "done"
    ? versionFromOutput(binary, out.success, out.stdout, out.stderr)
    : out.kind === "timeout"
    ? { error: `\`${binary} -v\` did not answer within ${RIZIN_PROBE_TIMEOUT_MS / 1000} s` }
    : { error: `cannot run ${binary}: ${out.error.message}` };
  if (!version) {
    return { name: "rizin", available: false, engine, reason: `${error}: ${INSTALL_HINT}` };
  }
  if (!supported(version)) {
    return {
      name: "rizin",
      available: false,
      version: version.text,
      engine,
      reason: `rizin ${version.text} at ${binary} is older than 0.7: ${INSTALL_HINT}`,
    };
  }
  return { name: "rizin", available: true, version: version.text, engine: `${engine} (${binary})` };
}

const EMBEDDED: BackendInfo = {
  name: "embedded",
  available: true,
  version: VERSION,
  engine: "remcp's own TypeScript + WebAssembly engine (iced-x86, Capstone)",
};

/** How long a probe's answer is reused: engines are rarely installed while remcp runs. */
const PROBE_TTL_MS = 60_000;

/**
 * Probes of one configuration, run off the event loop, bounded in time, shared by concurrent
 * callers and reused for {@link PROBE_TTL_MS}.
 */
export class BackendProbes {
  #config: Config;
  #env: Record<string, string>;
  #now: () => number;
  #cache = new Map<string, { at: number; answer: Promise<BackendInfo[]> }>();

  constructor(config: Config, env: Record<string, string>, now: () => number = Date.now) {
    this.#config = config;
    this.#env = env;
    this.#now = now;
  }

  /** Every backend's entry (list_backends). */
  async all(): Promise<BackendInfo[]> {
    return [EMBEDDED, ...await this.#cached("rizin"), ...await this.#cached("python")];
  }

  /** One backend's entry, probing only what it needs; undefined for an unknown name. */
  async one(name: string): Promise<BackendInfo | undefined> {
    if (name === "embedded") return EMBEDDED;
    if (!BACKEND_NAMES.includes(name) && name !== TEST_BACKEND) return undefined;
    const group = name === "rizin" ? "rizin" : "python";
    return (await this.#cached(group)).find((b) => b.name === name);
  }

  #cached(group: "rizin" | "python"): Promise<BackendInfo[]> {
    const hit = this.#cache.get(group);
    if (hit && this.#now() - hit.at < PROBE_TTL_MS) return hit.answer;
    const answer = group === "rizin"
      ? probeRizin(this.#config, this.#env).then((r) => [r])
      : probePython(this.#config.python, this.#env).then((p) => pythonBackendInfos(p, this.#env));
    this.#cache.set(group, { at: this.#now(), answer });
    return answer;
  }
}

// One BackendProbes per supervisor configuration, so the cache lives as long as its supervisor.
const PROBES = new WeakMap<Config, BackendProbes>();

/** The probes of `config` (the same object for the same configuration). */
export function backendProbes(config: Config): BackendProbes {
  let p = PROBES.get(config);
  if (!p) PROBES.set(config, p = new BackendProbes(config, Deno.env.toObject()));
  return p;
}
