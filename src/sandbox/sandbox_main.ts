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
import {
  type InvokeResultMessage,
  parseParentMessage,
  type RunMessage,
  type WireError,
} from "./protocol.ts";
import type { EngineOutcome, InvokeOutcome } from "./engine_types.ts";
import type { SandboxEngine } from "./quickjs.ts";

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

interface ActiveRun {
  id: string;
  abort: AbortController;
  waiting: Map<number, (outcome: InvokeOutcome) => void>;
}

/** One child's side of the protocol: at most one run at a time. */
export class SandboxSession {
  readonly #engine: SandboxEngine;
  readonly #send: (line: string) => void;
  #active: ActiveRun | undefined;

  constructor(engine: SandboxEngine, send: (line: string) => void) {
    this.#engine = engine;
    this.#send = send;
  }

  /** Handles one line from the parent. */
  receive(line: string): void {
    if (line.trim() === "") return;
    const message = parseParentMessage(line);
    if (typeof message === "string") {
      console.error(`sandbox: ignoring a bad message: ${message}`);
      return;
    }
    switch (message.type) {
      case "run":
        this.#start(message);
        return;
      case "invoke_result":
        this.#settle(message);
        return;
      case "cancel":
        if (this.#active?.id === message.id) this.#active.abort.abort();
        return;
    }
  }

  #start(message: RunMessage): void {
    if (this.#active) {
      const error: WireError = {
        code: "Internal",
        message: "The sandbox process is already running a script",
        detail: {},
      };
      this.#send(doneLine(message.id, { ok: false, error, stats: { invokes: 0, cpuMs: 0 } }));
      return;
    }
    const active: ActiveRun = { id: message.id, abort: new AbortController(), waiting: new Map() };
    this.#active = active;
    const runId = JSON.stringify(message.id);
    this.#engine.run(
      {
        code: message.code,
        globals: message.globals,
        limits: message.limits,
        signal: active.abort.signal,
      },
      {
        invoke: (callId, name, argsJson) => {
          const waiting = new Promise<InvokeOutcome>((resolve) => {
            active.waiting.set(callId, resolve);
          });
          this.#send(
            `{"type":"invoke","runId":${runId},"callId":${callId},"name":${
              JSON.stringify(name)
            },"args":${argsJson}}`,
          );
          return waiting;
        },
        log: (level, text) => {
          this.#send(JSON.stringify({ type: "log", runId: message.id, level, text }));
        },
      },
    ).catch((err): EngineOutcome => ({
      ok: false,
      error: { code: "Internal", message: `Sandbox engine failed: ${String(err)}`, detail: {} },
      stats: { invokes: 0, cpuMs: 0 },
      clean: false,
    })).then((outcome) => {
      this.#active = undefined;
      this.#send(doneLine(message.id, outcome));
    });
  }

  #settle(message: InvokeResultMessage): void {
    const active = this.#active;
    if (!active || active.id !== message.runId) return;
    const resolve = active.waiting.get(message.callId);
    if (!resolve) return;
    active.waiting.delete(message.callId);
    resolve(
      message.ok
        ? { ok: true, valueJson: JSON.stringify(message.value) }
        : { ok: false, error: message.error },
    );
  }
}

/** The `done` line; the result is the guest's own JSON text, spliced in without a re-parse. */
function doneLine(
  id: string,
  outcome:
    & Pick<EngineOutcome, "stats">
    & ({ ok: true; resultJson: string } | {
      ok: false;
      error: WireError;
    }),
): string {
  const head = `{"type":"done","id":${JSON.stringify(id)},"stats":${JSON.stringify(outcome.stats)}`;
  return outcome.ok
    ? `${head},"ok":true,"result":${outcome.resultJson}}`
    : `${head},"ok":false,"error":${JSON.stringify(outcome.error)}}`;
}
