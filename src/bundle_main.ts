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

/** The sandbox bundle's placeholder in the main bundle (src/sandbox/sandbox_bundle.ts). */
const SANDBOX_PLACEHOLDER = /(["'`])@@remcp-sandbox-bundle@@\1/g;

/**
 * Puts the sandbox's own bundle (`sandbox`, JavaScript) into the main bundle `code`, as base64
 * over its one placeholder literal. Throws when the placeholder is not there exactly once (the
 * minifier or sandbox_bundle.ts changed): a bundle that silently starts its sandboxes from the
 * whole file would only be slower, and nobody would notice.
 */
export function embedSandbox(code: string, sandbox: string): string {
  const found = code.match(SANDBOX_PLACEHOLDER)?.length ?? 0;
  if (found !== 1) {
    throw new Error(
      `the bundle holds the sandbox placeholder ${found} times, not once: ` +
        "check src/sandbox/sandbox_bundle.ts",
    );
  }
  const encoded = new TextEncoder().encode(sandbox) as unknown as { toBase64(): string };
  return code.replace(SANDBOX_PLACEHOLDER, () => `"${encoded.toBase64()}"`);
}

/** `deno bundle --minify` of `entry` into `out`; the exit code. */
async function denoBundle(entry: string, out: string): Promise<number> {
  const built = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--minify",
      "--quiet",
      "-o",
      out,
      fileURLToPath(new URL(entry, import.meta.url)),
    ],
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  return built.success ? 0 : built.code || 1;
}

/**
 * Bundles src/main.ts into `out` with the sandbox's own bundle inside, and moves their WASM
 * literals; returns the exit code.
 */
export async function bundleMain(out: string): Promise<number> {
  const sandboxOut = await Deno.makeTempFile({ prefix: "remcp-sandbox-bundle-", suffix: ".js" });
  try {
    const code = await denoBundle("./sandbox/bundle_entry.ts", sandboxOut) ||
      await denoBundle("./main.ts", out);
    if (code !== 0) return code;
    const sandbox = moveBlobsIntoComments(await Deno.readTextFile(sandboxOut));
    const main = embedSandbox(await Deno.readTextFile(out), sandbox);
    await Deno.writeTextFile(out, moveBlobsIntoComments(main));
    return 0;
  } finally {
    await Deno.remove(sandboxOut).catch(() => {});
  }
}

if (import.meta.main) {
  Deno.exit(await bundleMain(Deno.args[0] ?? "dist/remcp.js"));
}
