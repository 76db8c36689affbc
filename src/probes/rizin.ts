/**
 * Finding the rizin binary (`--rizin PATH`, `REMCP_RIZIN`, else `rizin` on PATH) and reading its
 * version from `rizin -v`.
 */
import { delimiter, isAbsolute, join } from "node:path";

/** Oldest Rizin release remcp drives. */
export const MIN_RIZIN: readonly [number, number] = [0, 7];

/** How to install Rizin, for Unavailable errors. */
export const INSTALL_HINT = "install Rizin ≥ 0.7 (https://rizin.re, or your package manager: " +
  "`brew install rizin`, `pacman -S rizin`, `apt install rizin` on newer Debian/Ubuntu) and " +
  "put it on PATH, or point REMCP_RIZIN / --rizin at the rizin executable";

/** The rizin executable to run, or undefined when none is found. */
export function findRizin(
  configured: string | undefined,
  env: Record<string, string | undefined>,
  isFile: (path: string) => boolean = fileExists,
): string | undefined {
  if (configured) return configured;
  const exe = Deno.build.os === "windows" ? "rizin.exe" : "rizin";
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    const candidate = join(dir, exe);
    if (isFile(candidate)) return candidate;
  }
  return undefined;
}

/** `rizin -v` parsed: "0.7.3" and its numeric parts. */
export interface RizinVersion {
  text: string;
  major: number;
  minor: number;
  patch: number;
}

/** Parses the first line of `rizin -v` ("rizin 0.7.3 @ linux-x86-64"). */
export function parseRizinVersion(output: string): RizinVersion | undefined {
  const m = /rizin\s+v?(\d+)\.(\d+)\.(\d+)(\S*)/i.exec(output);
  if (!m) return undefined;
  return {
    text: `${m[1]}.${m[2]}.${m[3]}${m[4] ?? ""}`,
    major: Number(m[1]),
    minor: Number(m[2]),
    patch: Number(m[3]),
  };
}

/** Whether remcp supports this version (0.7.x and later). */
export function supported(v: RizinVersion): boolean {
  return v.major > MIN_RIZIN[0] || (v.major === MIN_RIZIN[0] && v.minor >= MIN_RIZIN[1]);
}

/** Runs `rizin -v`; the version, or why it could not be read. */
export function probeVersion(binary: string): { version?: RizinVersion; error?: string } {
  try {
    const out = new Deno.Command(binary, {
      args: ["-v"],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).outputSync();
    const text = new TextDecoder().decode(out.stdout);
    const version = parseRizinVersion(text);
    if (!out.success || !version) {
      const err = new TextDecoder().decode(out.stderr).trim().split("\n")[0] ?? "";
      return { error: `\`${binary} -v\` did not print a rizin version${err ? `: ${err}` : ""}` };
    }
    return { version };
  } catch (err) {
    return { error: `cannot run ${binary}: ${(err as Error).message}` };
  }
}

function fileExists(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}
