/**
 * The backends the supervisor knows about, how to tell whether each is available here, and which
 * tools each implements — without loading any engine.
 */
import { VERSION } from "../config.ts";
import type { Config } from "../config.ts";
import { findRizin, INSTALL_HINT, probeVersion, supported } from "../probes/rizin.ts";
import { pythonBackendInfos } from "./python_workers.ts";
import type { BackendInfo } from "./backend_info.ts";

/** Every backend name remcp knows. Which tools each has is its workers' own tools/list. */
export const BACKEND_NAMES = ["embedded", "rizin", "ghidra", "ida", "binja"] as const;

/**
 * Rizin: `--rizin PATH` / REMCP_RIZIN, else `rizin` on PATH; available when `rizin -v` prints a
 * version ≥ 0.7.
 */
function probeRizin(config: Config, env: Record<string, string>): BackendInfo {
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
  const { version, error } = probeVersion(binary);
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

/**
 * Availability of every backend on this machine. The Python backends' entries probe the
 * interpreter lazily (see pythonBackendInfos); `env` is the environment workers will get.
 */
export function probeBackends(
  config: Config,
  env: Record<string, string> = Deno.env.toObject(),
): BackendInfo[] {
  return [
    {
      name: "embedded",
      available: true,
      version: VERSION,
      engine: "remcp's own TypeScript + WebAssembly engine (iced-x86, Capstone)",
    },
    probeRizin(config, env),
    ...pythonBackendInfos(config, env),
  ];
}
