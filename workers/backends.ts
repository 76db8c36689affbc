/**
 * The backends a worker can run, by name. Only the worker imports engine code; the supervisor
 * knows backends through `src/supervisor/backends.ts`.
 */
import { RemcpError } from "../src/errors.ts";
import type { Backend, BackendEnv } from "./backend.ts";
import { createEmbedded, openEmbedded } from "./embedded/embedded_backend.ts";
import { openRizin } from "./rizin/rizin_backend.ts";

/** Starts `name` on `path`; the backend loads and analyses in the background. */
export function openBackend(
  name: string,
  path: string,
  options: Record<string, unknown>,
  env: BackendEnv,
): Backend {
  switch (name) {
    case "embedded":
      return openEmbedded(path, options, env);
    case "rizin":
      return openRizin(path, options, env);
    default:
      throw new RemcpError("Unsupported", `Unknown backend "${name}"`, { backend: name });
  }
}

/**
 * A backend waiting for its file, for a standby worker; only the embedded backend starts this
 * way (the others load their engine per file).
 */
export function standbyBackend(
  name: string,
  env: BackendEnv,
): { backend: Backend; open(path: string, options: Record<string, unknown>): void } {
  if (name !== "embedded") {
    throw new RemcpError("Unsupported", `The ${name} backend has no standby mode`, {
      backend: name,
    });
  }
  return createEmbedded(env);
}
