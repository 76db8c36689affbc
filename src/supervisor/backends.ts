/**
 * The backends the supervisor knows about, how to tell whether each is available here, and which
 * tools each implements — without loading any engine.
 */
import { VERSION } from "../config.ts";
import type { Config } from "../config.ts";

/** One backend as list_backends reports it. */
export interface BackendInfo {
  name: string;
  available: boolean;
  version?: string;
  reason?: string;
  engine: string;
}

/** Tools a backend lacks (the rest of the catalog it implements). */
const MISSING: Record<string, readonly string[]> = {
  embedded: ["decompile_function"],
  rizin: [],
  ghidra: [],
  ida: [],
  binja: [],
};

/** Every backend name remcp knows. */
export const BACKEND_NAMES = Object.keys(MISSING);

/** Whether `backend` implements `tool`. */
export function backendHas(backend: string, tool: string): boolean {
  const missing = MISSING[backend];
  return missing !== undefined && !missing.includes(tool);
}

/** The backends that implement `tool`. */
export function backendsWith(tool: string): string[] {
  return BACKEND_NAMES.filter((b) => backendHas(b, tool));
}

/** Availability of every backend on this machine. */
export function probeBackends(config: Config): BackendInfo[] {
  return [
    {
      name: "embedded",
      available: true,
      version: VERSION,
      engine: "remcp's own TypeScript + WebAssembly engine (iced-x86, Capstone)",
    },
    {
      name: "rizin",
      available: false,
      engine: "Rizin through rizin -q0",
      reason: `the rizin backend is not built into this version of remcp yet` +
        (config.rizinPath ? ` (REMCP_RIZIN=${config.rizinPath} is set)` : ""),
    },
    {
      name: "ghidra",
      available: false,
      engine: "Ghidra through pyghidra",
      reason: "the ghidra backend is not built into this version of remcp yet",
    },
    {
      name: "ida",
      available: false,
      engine: "IDA Pro 9+ through idalib",
      reason: "the ida backend is not built into this version of remcp yet",
    },
    {
      name: "binja",
      available: false,
      engine: "Binary Ninja headless API",
      reason: "the binja backend is not built into this version of remcp yet",
    },
  ];
}
