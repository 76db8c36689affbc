/**
 * Test harness: starts the real remcp process and connects the official MCP SDK client to it
 * over real stdio.
 */
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { fileURLToPath } from "node:url";

/** Absolute path of a file in the repository. */
export function repoPath(rel: string): string {
  return fileURLToPath(new URL(`../${rel}`, import.meta.url));
}

/** Absolute path of a fixture binary. */
export function fixture(name: string): string {
  return repoPath(`tests/fixtures/bin/${name}`);
}

/** A connected client and how to stop it. */
export interface Harness {
  client: Client;
  transport: StdioClientTransport;
  stateDir: string;
  /**
   * Every progress notification the server sent, in arrival order, recorded as it is read. The
   * SDK client hands notifications to `onprogress` a microtask later but forgets a request's
   * progress handler as soon as its response is read, so a note that arrives in the same read as
   * the response (common on a busy machine) never reaches `onprogress`; this list has it.
   */
  progress: ProgressParams[];
  close(): Promise<void>;
}

/** The parameters of one `notifications/progress`. */
export interface ProgressParams {
  progressToken: string | number;
  progress: number;
  total?: number;
  message?: string;
}

/** Client options for one protocol era. */
export type Era = "legacy" | "auto" | "2026-07-28";

/** The environment a test's remcp runs with: this one's, a state folder, checked output. */
export function remcpEnv(
  stateDir: string,
  env: Record<string, string> = {},
): Record<string, string> {
  return {
    ...Deno.env.toObject(),
    REMCP_STATE_DIR: stateDir,
    REMCP_CHECK_OUTPUT: "1",
    REMCP_LOG_LEVEL: "warn",
    ...env,
  };
}

/** Starts `remcp [args]` and connects a client. */
export async function startRemcp(
  opts: {
    env?: Record<string, string>;
    args?: string[];
    era?: Era;
    stateDir?: string;
    /** Another checkout to run remcp from (benchmarks compare two versions in one run). */
    root?: string;
  } = {},
): Promise<Harness> {
  const stateDir = opts.stateDir ?? await Deno.makeTempDir({ prefix: "remcp-test-state-" });
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: remcpArgs(opts.args ?? [], opts.root),
    env: remcpEnv(stateDir, opts.env),
    stderr: "pipe",
  });
  const era = opts.era ?? "legacy";
  const client = new Client(
    { name: "remcp-test", version: "0.0.0" },
    {
      versionNegotiation: {
        mode: era === "2026-07-28" ? { pin: "2026-07-28" } : era,
      },
    } as never,
  );
  const stderr: string[] = [];
  transport.stderr?.on("data", (d: Uint8Array) => stderr.push(new TextDecoder().decode(d)));
  await client.connect(transport);
  const progress: ProgressParams[] = [];
  const dispatch = transport.onmessage;
  transport.onmessage = (message) => {
    if ("method" in message && message.method === "notifications/progress") {
      progress.push(message.params as unknown as ProgressParams);
    }
    dispatch?.(message);
  };
  return {
    client,
    transport,
    stateDir,
    progress,
    async close() {
      await client.close().catch(() => {});
      if (!opts.stateDir) await Deno.remove(stateDir, { recursive: true }).catch(() => {});
    },
  };
}

/** Calls a tool and returns `{structured, isError}`. */
export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ sc: Record<string, unknown>; isError: boolean; text: string }> {
  const r = await client.callTool({ name, arguments: args });
  const text = (r.content as { type: string; text?: string }[])[0]?.text ?? "";
  // A failure's object travels in the text only (src/protocol/results.ts says why).
  const sc = r.isError === true ? JSON.parse(text) : r.structuredContent ?? {};
  return {
    sc: sc as Record<string, unknown>,
    isError: r.isError === true,
    text,
  };
}

/** Calls a tool that must succeed and returns its structured content. */
export async function ok(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const r = await callTool(client, name, args);
  if (r.isError) throw new Error(`${name} failed: ${r.text}`);
  return r.sc;
}

/** Calls a tool that must fail and returns its error payload. */
export async function fails(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ error: string; error_type: string; detail: Record<string, unknown> }> {
  const r = await callTool(client, name, args);
  if (!r.isError) throw new Error(`${name} should have failed but returned ${r.text}`);
  return r.sc as { error: string; error_type: string; detail: Record<string, unknown> };
}

/** The `deno` arguments that run `remcp ARGS…` from this checkout, or from the one at `root`. */
export function remcpArgs(args: string[], root?: string): string[] {
  const at = (rel: string) => root ? `${root}/${rel}` : repoPath(rel);
  return ["run", "-A", "--quiet", "--config", at("deno.json"), at("src/main.ts"), ...args];
}

/** Runs `remcp ARGS…` from the checkout to completion and collects its exit code and output. */
export async function runRemcpCommand(
  args: string[],
  stateDir?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const dir = stateDir ?? await Deno.makeTempDir({ prefix: "remcp-test-state-" });
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: remcpArgs(args),
      env: { REMCP_STATE_DIR: dir, REMCP_LOG_LEVEL: "error" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const dec = new TextDecoder();
    return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
  } finally {
    if (!stateDir) await Deno.remove(dir, { recursive: true });
  }
}

/** Runs `remcp run ARGS…` (see {@link runRemcpCommand}). */
export function runCli(args: string[], stateDir?: string) {
  return runRemcpCommand(["run", ...args], stateDir);
}

/**
 * Runs `fn` with a fresh temporary folder named `prefix…`, removed however `fn` ends: a test
 * that fails must not leave its files in the system's temporary folder.
 */
export async function withTempDir<T>(prefix: string, fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix });
  try {
    return await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/**
 * Waits until `database` is analysed, however long that takes: asks in 30 s spans, since the
 * client gives up on one request after 60 s (a large analysis on a busy machine takes longer).
 */
export async function analysed(client: Client, database: unknown): Promise<void> {
  for (;;) {
    const r = await callTool(client, "wait_for_analysis", { database, timeout: 30 });
    if (!r.isError) return;
    if (r.sc.error_type !== "Timeout") throw new Error(`wait_for_analysis failed: ${r.text}`);
  }
}
