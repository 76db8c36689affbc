/**
 * The sandbox's own bundle, for a remcp that runs as a bundle (`deno task bundle` → remcp.js).
 *
 * A sandbox process started from the whole bundle parses all of remcp (8 MB) and sets up Deno's
 * Node.js compatibility, since bundling hoists every `node:` import to the top: ~600 ms and
 * ~93 MB resident per idle sandbox, against ~170 ms and ~50 MB for a bundle of the sandbox alone
 * (bench/sandbox_start.ts --bundle). So src/bundle_main.ts bundles src/sandbox/bundle_entry.ts
 * too and writes it, base64, over {@link EMBEDDED}'s placeholder; the supervisor writes it once
 * to a private temporary file and starts its sandboxes from there. From source, a URL or the
 * compiled executable the placeholder stays, and sandboxes start from the main module.
 */

/** The placeholder, replaced by the sandbox bundle's base64 in a bundle. The only such literal. */
const EMBEDDED: string = "@@remcp-sandbox-bundle@@";

let written: string | undefined;

/** Whether this program carries the sandbox's own bundle. */
export function hasSandboxBundle(): boolean {
  return !EMBEDDED.startsWith("@@");
}

/**
 * The path of a file holding the sandbox's bundle, written on first use (mode 0600, a fresh
 * name: nobody else's file is ever run) and removed when this process ends normally; undefined
 * when this program does not carry one, or the file cannot be written (then sandboxes start from
 * the whole bundle: slower, but they work).
 */
export function sandboxBundlePath(): string | undefined {
  if (!hasSandboxBundle()) return undefined;
  if (written !== undefined) return written;
  let path: string;
  try {
    path = Deno.makeTempFileSync({ prefix: "remcp-sandbox-", suffix: ".js" });
    const bytes = (Uint8Array as unknown as { fromBase64(s: string): Uint8Array }).fromBase64(
      EMBEDDED,
    );
    Deno.writeFileSync(path, bytes);
  } catch {
    return undefined;
  }
  globalThis.addEventListener("unload", () => {
    try {
      Deno.removeSync(path);
    } catch {
      // Already gone: the temporary folder was cleaned.
    }
  });
  written = path;
  return path;
}
