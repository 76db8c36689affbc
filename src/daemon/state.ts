/**
 * The daemon's state file, `daemon.json` in the state folder: where the daemon listens, its
 * bearer token and pid. Written atomically (temp file + rename) with mode 0600 in a 0700 folder,
 * removed on shutdown; a reader checks the shape once and trusts it after.
 */
import { join } from "node:path";
import process from "node:process";
import { z } from "zod";

/** What `daemon.json` holds. */
export const DaemonStateSchema = z.object({
  host: z.string().min(1),
  port: z.number().int().min(1).max(65535),
  token: z.string().regex(/^[0-9a-f]{64}$/),
  pid: z.number().int().positive(),
  version: z.string(),
  /** ISO time the daemon started. */
  started: z.string(),
  /** Started by a proxy (`serve --auto`), so it exits when idle. */
  auto: z.boolean().default(false),
});

/** A running daemon as its state file describes it. */
export type DaemonState = z.infer<typeof DaemonStateSchema>;

/** The file names the daemon uses inside the state folder. */
export function daemonPaths(stateDir: string): { state: string; lock: string; logs: string } {
  return {
    state: join(stateDir, "daemon.json"),
    lock: join(stateDir, "daemon.lock"),
    logs: join(stateDir, "logs"),
  };
}

/** The MCP endpoint of a daemon (IPv6 hosts in brackets). */
export function daemonUrl(state: Pick<DaemonState, "host" | "port">, path = "/mcp"): string {
  const host = state.host.includes(":") ? `[${state.host}]` : state.host;
  return `http://${host}:${state.port}${path}`;
}

/** Makes the state folder (0700 on POSIX) if it is missing. */
export async function ensureStateDir(stateDir: string): Promise<void> {
  await Deno.mkdir(stateDir, { recursive: true, mode: 0o700 });
  if (Deno.build.os !== "windows") await Deno.chmod(stateDir, 0o700);
}

/**
 * Reads the state file: undefined when there is none, or when it is unreadable or malformed
 * (a half-written or foreign file is as good as none; the next writer replaces it).
 */
export async function readState(path: string): Promise<DaemonState | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch {
    return undefined;
  }
  try {
    const parsed = DaemonStateSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Writes the state file atomically with mode 0600: a reader sees the old file or the new one. */
export async function writeState(path: string, state: DaemonState): Promise<void> {
  const tmp = `${path}.${Deno.pid}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  try {
    await Deno.writeTextFile(tmp, JSON.stringify(state, null, 2) + "\n", {
      createNew: true,
      mode: 0o600,
    });
    if (Deno.build.os !== "windows") await Deno.chmod(tmp, 0o600);
    await Deno.rename(tmp, path);
  } catch (err) {
    await Deno.remove(tmp).catch(() => {});
    throw err;
  }
}

/** Removes the state file if it still names `pid` (a successor may already have replaced it). */
export async function removeState(path: string, pid: number): Promise<boolean> {
  const current = await readState(path);
  if (current && current.pid !== pid) return false;
  try {
    await Deno.remove(path);
    return true;
  } catch {
    return false;
  }
}

/** Whether a process with this pid runs (signal 0 probes without signalling; zombies are dead). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as { code?: string }).code === "EPERM";
  }
  return !isZombie(pid);
}

// An exited child nobody has reaped yet still answers signal 0.
function isZombie(pid: number): boolean {
  if (Deno.build.os !== "linux") return false;
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) === "Z";
  } catch {
    return false;
  }
}
