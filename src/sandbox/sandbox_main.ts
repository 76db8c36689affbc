/**
 * The sandbox process (`remcp sandbox`): runs `execute` scripts in QuickJS for a parent
 * {@link SandboxPool}, speaking the line protocol of protocol.ts on stdin/stdout.
 *
 * Start-up order matters: the engine (and every module it loads lazily) is loaded first, then
 * every Deno permission is revoked, and only then is `ready` sent and a script run. The process is
 * started with `-A`; a script that escaped QuickJS would still find no file, network, environment,
 * subprocess or FFI access.
 */
import { readLines } from "./lines.ts";
import { SandboxSession } from "./sandbox_session.ts";

/**
 * `import` (remote module loading) is a runtime permission that Deno's type declarations do not
 * list yet, hence the untyped construction.
 */
const IMPORT_PERMISSION: Deno.PermissionDescriptor = JSON.parse('{"name":"import"}');

/** Every permission the process gives up before it runs a script. */
const DROPPED_PERMISSIONS: readonly Deno.PermissionDescriptor[] = [
  { name: "read" },
  { name: "write" },
  { name: "net" },
  { name: "env" },
  { name: "run" },
  { name: "ffi" },
  { name: "sys" },
  IMPORT_PERMISSION,
];

/** Runs the sandbox process until stdin closes. */
export async function sandboxMain(): Promise<void> {
  keepStdoutForProtocol();
  const writeLine = stdoutLines();
  const started = performance.now();
  const { SandboxEngine } = await import("./quickjs.ts");
  const engine = await SandboxEngine.load();
  dropPermissions();
  const session = new SandboxSession(engine, writeLine);
  writeLine(JSON.stringify({ type: "ready", pid: Deno.pid, loadMs: performance.now() - started }));
  for await (const line of readLines(Deno.stdin.readable)) session.receive(line);
}

/** Revokes every permission, and refuses to go on if one is still granted. */
function dropPermissions(): void {
  for (const descriptor of DROPPED_PERMISSIONS) {
    Deno.permissions.revokeSync(descriptor);
    if (Deno.permissions.querySync(descriptor).state === "granted") {
      throw new Error(`Sandbox process could not drop the ${descriptor.name} permission`);
    }
  }
}

/** Nothing but protocol lines may reach stdout: route stray console output to stderr. */
function keepStdoutForProtocol(): void {
  const toStderr = (...args: unknown[]) => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}

/**
 * A writer of protocol lines to stdout. Lines are queued and written in one go once the current
 * synchronous work (often a QuickJS slice that issued many invokes) is over, so the script's CPU
 * time does not pay for system calls and a `Promise.all` of invokes costs one write.
 */
function stdoutLines(): (line: string) => void {
  const encoder = new TextEncoder();
  const outbox: string[] = [];
  const flush = () => {
    const bytes = encoder.encode(outbox.join("\n") + "\n");
    outbox.length = 0;
    let written = 0;
    while (written < bytes.length) written += Deno.stdout.writeSync(bytes.subarray(written));
  };
  return (line) => {
    outbox.push(line);
    if (outbox.length === 1) queueMicrotask(flush);
  };
}
