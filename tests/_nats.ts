/**
 * Cluster test helpers: a real nats-server on loopback (random port, temporary store) and real
 * `remcp node` / `remcp run --nats` processes whose stderr lines tests wait on.
 */
import { remcpArgs } from "./_harness.ts";

/** Why cluster tests cannot run here, or undefined when nats-server is on PATH. */
export function natsMissing(): string | undefined {
  try {
    const out = new Deno.Command("nats-server", {
      args: ["--version"],
      stdout: "null",
      stderr: "null",
    })
      .outputSync();
    return out.success ? undefined : "nats-server --version failed";
  } catch {
    return "nats-server is not on PATH (apt-get install nats-server)";
  }
}

/** A running process whose output lines are collected as they come. */
export class Proc {
  readonly stdout: string[] = [];
  readonly stderr: string[] = [];
  readonly status: Promise<Deno.CommandStatus>;
  #waiters: (() => void)[] = [];
  #child: Deno.ChildProcess;

  constructor(cmd: string, args: string[], env: Record<string, string> = {}) {
    this.#child = new Deno.Command(cmd, {
      args,
      env,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const pump = async (s: ReadableStream<Uint8Array>, into: string[]) => {
      let buf = "";
      for await (const chunk of s.pipeThrough(new TextDecoderStream())) {
        buf += chunk;
        const lines = buf.split("\n");
        buf = lines.pop() ?? "";
        into.push(...lines);
        this.#wake();
      }
      if (buf) into.push(buf);
      this.#wake();
    };
    const out = pump(this.#child.stdout, this.stdout);
    const err = pump(this.#child.stderr, this.stderr);
    this.status = Promise.all([out, err]).then(() => this.#child.status).then((s) => {
      this.#wake();
      return s;
    });
  }

  get pid(): number {
    return this.#child.pid;
  }

  #wake() {
    for (const w of this.#waiters.splice(0)) w();
  }

  /** Resolves when `test` holds, checked on every new line; rejects after `ms` with `what`. */
  async until(test: () => boolean, what: string, ms = 240_000): Promise<void> {
    const deadline = Date.now() + ms;
    let exited = false;
    this.status.then(() => exited = true);
    while (!test()) {
      if (exited) {
        throw new Error(`process exited while waiting for ${what}:\n${this.stderr.join("\n")}`);
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}:\n${this.stderr.join("\n")}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** Resolves on the next output line or the exit. */
  changed(): Promise<void> {
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Waits for a stderr line matching `re` and returns it. */
  async line(re: RegExp, ms?: number): Promise<string> {
    await this.until(() => this.stderr.some((l) => re.test(l)), String(re), ms);
    return this.stderr.find((l) => re.test(l))!;
  }

  kill(signal: Deno.Signal = "SIGTERM"): void {
    try {
      this.#child.kill(signal);
    } catch {
      // Already gone.
    }
  }
}

/** A nats-server on 127.0.0.1 with its store in a temporary folder. */
export interface NatsServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** Starts nats-server (`-js` unless `jetstream` is false) with extra `args`. */
export async function startNats(
  opts: { jetstream?: boolean; args?: string[] } = {},
): Promise<NatsServer> {
  const dir = await Deno.makeTempDir({ prefix: "remcp-test-nats-" });
  for (let attempt = 0;; attempt++) {
    const port = freePort();
    const p = new Proc("nats-server", [
      "-a",
      "127.0.0.1",
      "-p",
      String(port),
      ...(opts.jetstream === false ? [] : ["-js", "-sd", dir]),
      ...(opts.args ?? []),
    ]);
    try {
      await p.line(/Server is ready/, 60_000);
    } catch (err) {
      p.kill("SIGKILL");
      await p.status;
      // Another process took the port between our probe and the server's bind.
      if (attempt < 3 && p.stderr.some((l) => /address already in use/i.test(l))) continue;
      throw err;
    }
    return {
      url: `nats://127.0.0.1:${port}`,
      port,
      async stop() {
        p.kill("SIGTERM");
        await p.status;
        await Deno.remove(dir, { recursive: true }).catch(() => {});
      },
    };
  }
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** `remcp ARGS…` from the checkout, as a process. */
export function remcp(args: string[], env: Record<string, string> = {}): Proc {
  return new Proc(Deno.execPath(), remcpArgs(args), { REMCP_LOG_LEVEL: "info", ...env });
}

/** A node on `url` with its own state and temporary folders (`tmp`, checked for leftovers). */
export async function startNode(url: string, args: string[] = []) {
  const tmp = await Deno.makeTempDir({ prefix: "remcp-test-node-tmp-" });
  const state = await Deno.makeTempDir({ prefix: "remcp-test-node-state-" });
  const p = remcp(["node", "--nats", url, "--lease", "2", ...args], {
    TMPDIR: tmp,
    REMCP_STATE_DIR: state,
  });
  await p.line(/ready:/);
  return {
    proc: p,
    tmp,
    /** Files left in the node's temporary folder. */
    async leftovers(): Promise<string[]> {
      const names: string[] = [];
      for await (const e of Deno.readDir(tmp)) names.push(e.name);
      return names;
    },
    async cleanup() {
      p.kill("SIGKILL");
      await p.status;
      await Deno.remove(tmp, { recursive: true }).catch(() => {});
      await Deno.remove(state, { recursive: true }).catch(() => {});
    },
  };
}

/** Runs `remcp run --nats URL ARGS…` to the end. */
export async function submit(url: string, args: string[], env: Record<string, string> = {}) {
  const p = remcp(["run", "--nats", url, ...args], env);
  const status = await p.status;
  return { code: status.code, stdout: p.stdout.join("\n"), stderr: p.stderr.join("\n") };
}

/** Waits until one of `procs` prints a stderr line matching `re`; resolves to that process. */
export async function firstWith<T extends { proc: Proc }>(
  procs: T[],
  re: RegExp,
  ms = 240_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const hit = procs.find((p) => p.proc.stderr.some((l) => re.test(l)));
    if (hit) return hit;
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`timed out waiting for ${re} from ${procs.length} processes`);
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      ...procs.map((p) => p.proc.changed()),
      new Promise((resolve) => timer = setTimeout(resolve, left)),
    ]);
    clearTimeout(timer);
  }
}
