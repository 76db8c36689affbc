/**
 * `deno task bundle`: writes dist/remcp.js, one self-contained minified file, with `deno bundle`.
 *
 * `deno bundle` inlines the WASM engines (iced-x86, Capstone, QuickJS) as base64 string literals,
 * about 6 MB. V8 pays for literals that big at every start, though the supervisor never loads an
 * engine (workers and sandboxes do): about 30 ms of a 160 ms start. So each one moves into a
 * comment inside a function of its own, read back with `Function.prototype.toString` (which
 * returns the exact source text) the first time that engine loads.
 *
 *   deno run -A src/bundle_main.ts [out]
 */

import { fileURLToPath } from "node:url";

/** Literals at least this long are moved; shorter ones are not worth a function. */
const MIN_BLOB = 10_000;
/** Name of the reader function added to the bundle; the `$` keeps it out of minified names. */
const READER = "$remcpBlob";

/**
 * Replaces every double-quoted base64 literal of at least `minLength` characters in bundled
 * `code` with a call that returns the same string from a comment. Base64 never contains `*`, so
 * a comment cannot end early. Code without such literals comes back unchanged.
 */
export function moveBlobsIntoComments(code: string, minLength = MIN_BLOB): string {
  const blobs: string[] = [];
  const pattern = new RegExp(`"([A-Za-z0-9+/]{${minLength},}={0,2})"`, "g");
  const moved = code.replace(pattern, (_, blob: string) => {
    blobs.push(blob);
    return `${READER}(${blobs.length - 1})`;
  });
  if (blobs.length === 0) return code;
  const holders = blobs.map((b, i) => `function ${READER}${i}(){/*${b}*/}`);
  return [
    moved,
    ...holders,
    `function ${READER}(i){const t=[${blobs.map((_, i) => READER + i).join(",")}][i]` +
    `.toString();return t.slice(t.indexOf("/*")+2,t.lastIndexOf("*/"))}`,
    "",
  ].join("\n");
}

/** Bundles src/main.ts into `out` and moves its WASM literals; returns the exit code. */
export async function bundleMain(out: string): Promise<number> {
  const entry = fileURLToPath(new URL("./main.ts", import.meta.url));
  const built = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--minify", "--quiet", "-o", out, entry],
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (!built.success) return built.code || 1;
  await Deno.writeTextFile(out, moveBlobsIntoComments(await Deno.readTextFile(out)));
  return 0;
}

if (import.meta.main) {
  Deno.exit(await bundleMain(Deno.args[0] ?? "dist/remcp.js"));
}
