/** Shared plumbing of the rizin tools: exclusive rizin use, the model, and warnings. */
import type { DbAccess, RizinDb } from "../db.ts";
import type { Model } from "../model.ts";
import type { Conn } from "../session.ts";

/**
 * Runs `f` with exclusive use of rizin and the current model; warnings the commands produced
 * are merged into the result's `warnings`.
 */
export function withRizin<T extends object>(
  db: DbAccess,
  f: (c: Conn, m: Model, d: RizinDb) => Promise<T> | T,
): Promise<T> {
  const d = db();
  return d.session.call(async (c) => {
    const result = await f(c, await d.model(c), d);
    if (c.warnings.length === 0) return result;
    const own = (result as { warnings?: unknown[] }).warnings ?? [];
    return { ...result, warnings: [...own, ...c.warnings] };
  });
}

/** Maps rizin's arch and bits to the names the embedded backend uses. */
export function archName(arch: string, bits: number): string {
  switch (arch) {
    case "x86":
      return bits === 64 ? "x86_64" : "x86";
    case "arm":
      return bits === 64 ? "aarch64" : "arm";
    case "mips":
      return bits === 64 ? "mips64" : "mips";
    case "ppc":
      return bits === 64 ? "ppc64" : "ppc";
    case "riscv":
      return bits === 64 ? "riscv64" : "riscv32";
    default:
      return arch;
  }
}

/** Maps rizin's bin plugin name to the embedded backend's format names. */
export function formatName(bintype: string | undefined | null): string {
  const t = (bintype ?? "").toLowerCase();
  if (t.startsWith("elf")) return "elf";
  if (t.startsWith("pe")) return "pe";
  if (t.startsWith("mach0") || t.startsWith("macho")) return "macho";
  if (t === "" || t === "any") return "raw";
  return t;
}
