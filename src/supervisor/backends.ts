/**
 * The backends the supervisor knows about, how to tell whether each is available here, and which
 * tools each implements — without loading any engine.
 */
import { VERSION } from "../config.ts";
import type { Config } from "../config.ts";
import { findRizin, INSTALL_HINT, probeVersion, supported } from "../../workers/rizin/locate.ts";
import { pythonBackendInfos, TEST_BACKEND } from "./python_workers.ts";

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
  "function_features",
] as const;

/** Tools a backend lacks (the rest of the catalog it implements). */
const MISSING: Record<string, readonly string[]> = {
  embedded: ["decompile_function", "command", "command_json"],
  rizin: ["function_features"],
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
