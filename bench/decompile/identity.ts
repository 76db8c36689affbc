/**
 * The harness's own check: a "decompiler" that returns each function's corpus source, written
 * the way the engine writes names (`sub_HEX` for itself and for the corpus functions it calls).
 * A correct harness reports every function of it as equivalent.
 */
import { fileURLToPath } from "node:url";
import type { Decompiler } from "./differential.ts";
import { CORPUS_DIR } from "./signatures.ts";

/** The source text of corpus function `name` in `source` (its lines, `CORPUS` dropped). */
export function functionSource(source: string, name: string): string {
  const lines = source.split("\n");
  const start = lines.findIndex((l) => new RegExp(`^CORPUS [^(]*\\b${name}\\(.*\\{`).test(l));
  if (start < 0) throw new Error(`no definition of ${name}`);
  const first = lines[start]!;
  const balance = (first.match(/\{/g) ?? []).length - (first.match(/\}/g) ?? []).length;
  let end = start;
  if (balance > 0) {
    while (end < lines.length && lines[end] !== "}") end++;
  }
  return lines.slice(start, end + 1).join("\n").replace(/^CORPUS /, "");
}

/** The identity decompiler over the corpus files. */
export const identityDecompiler: Decompiler = async (build, targets) => {
  const dir = fileURLToPath(CORPUS_DIR);
  const names = new Map(
    [...build.addresses].map(([n, a]) => [n, `sub_${a.toString(16).toUpperCase()}`]),
  );
  const out = [];
  for (const { sig, address } of targets) {
    const t0 = performance.now();
    let code = functionSource(await Deno.readTextFile(`${dir}/${sig.file}`), sig.name);
    code = code.replace(/\b\w+\b/g, (w) => names.get(w) ?? w);
    out.push({
      address: `0x${address.toString(16)}`,
      ok: true,
      ms: performance.now() - t0,
      result: { name: names.get(sig.name)!, start: `0x${address.toString(16)}`, code },
    });
  }
  return out;
};
