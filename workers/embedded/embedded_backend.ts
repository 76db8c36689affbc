/**
 * The embedded backend: pure TypeScript + WebAssembly, works with nothing installed. Loads the
 * file, then analyses in the background while the worker already answers `_status`.
 */
import { basename } from "node:path";
import { RemcpError, toErrorPayload } from "../../src/errors.ts";
import type { AnalysisStatus, Backend, ToolImpl } from "../backend.ts";
import type { BackendEnv } from "../backends.ts";
import { infoTools } from "./tools/info_tools.ts";
import type { EmbeddedDb } from "./db.ts";

/** Opens `path` with the embedded engine; returns at once, loading continues in the background. */
export function openEmbedded(
  path: string,
  options: Record<string, unknown>,
  env: BackendEnv,
): Backend {
  const started = performance.now();
  let status: AnalysisStatus = { state: "loading", message: "reading file" };
  let db: EmbeddedDb | undefined;
  const seconds = () => Math.round((performance.now() - started) / 10) / 100;

  const load = async () => {
    try {
      const bytes = await Deno.readFile(path);
      const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
      const sha256 = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
      db = { path, name: basename(path), bytes, sha256, options, header: sniff(bytes) };
      // A debugging aid (documented in the README): hold the database in "analysing" so the
      // Busy path can be exercised against a real worker.
      const delay = Number(Deno.env.get("REMCP_DEBUG_ANALYSIS_DELAY_MS") ?? 0);
      if (delay > 0) {
        status = { state: "analysing", progress: 0, message: "delayed for debugging" };
        await new Promise((r) => setTimeout(r, delay));
      }
      status = { state: "ready", seconds: seconds() };
      env.log.info(`loaded ${path}`, { seconds: seconds() });
    } catch (err) {
      const payload = err instanceof RemcpError ? toErrorPayload(err) : toErrorPayload(
        new RemcpError("OpenFailed", `Cannot open ${path}: ${(err as Error).message}`, { path }),
      );
      status = { state: "failed", error: payload, seconds: seconds() };
      env.log.warn(`open failed: ${payload.error}`);
    }
  };
  void load();

  const need = (): EmbeddedDb => {
    if (!db) throw new RemcpError("Busy", "The database is not loaded yet", {});
    return db;
  };
  return {
    name: "embedded",
    status: () => status,
    tools: (): ToolImpl[] => [...infoTools(need, () => status)],
    save: () => Promise.resolve({ saved: true }),
    close: () => Promise.resolve(),
  };
}

/** Cheap format recognition by magic bytes. */
function sniff(bytes: Uint8Array): { format: string; bits: number; endian: string } {
  const b = (i: number) => bytes[i] ?? 0;
  if (b(0) === 0x7f && b(1) === 0x45 && b(2) === 0x4c && b(3) === 0x46) {
    return { format: "elf", bits: b(4) === 2 ? 64 : 32, endian: b(5) === 2 ? "big" : "little" };
  }
  if (b(0) === 0x4d && b(1) === 0x5a) return { format: "pe", bits: 0, endian: "little" };
  const magic = ((b(0) << 24) | (b(1) << 16) | (b(2) << 8) | b(3)) >>> 0;
  if (magic === 0xcafebabe) return { format: "macho-fat", bits: 0, endian: "big" };
  if (magic === 0xcffaedfe) return { format: "macho", bits: 64, endian: "little" };
  if (magic === 0xcefaedfe) return { format: "macho", bits: 32, endian: "little" };
  return { format: "raw", bits: 0, endian: "little" };
}
