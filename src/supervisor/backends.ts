/**
 * The backends the supervisor knows about, how to tell whether each is available here, and which
 * tools each implements — without loading any engine.
 */
import { VERSION } from "../config.ts";
import type { Config } from "../config.ts";
import { findRizin, INSTALL_HINT, supported, versionFromOutput } from "../probes/rizin.ts";
import { probePython, pythonBackendInfos, TEST_BACKEND } from "./python_workers.ts";
import type { BackendInfo } from "./backend_info.ts";
import { runProbe } from "./run_probe.ts";

/** Every backend name remcp knows. Which tools each has is its workers' own tools/list. */
export const BACKEND_NAMES = ["embedded", "rizin", "ghidra", "ida", "binja"] as const;

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
    if (!(BACKEND_NAMES as readonly string[]).includes(name) && name !== TEST_BACKEND) {
      return undefined;
    }
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
