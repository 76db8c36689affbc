/**
 * The three ways users get remcp, each started exactly as the README says and driven by the
 * official MCP client: the bundle (`deno run -A remcp.js`, empty DENO_DIR, no network), `deno run`
 * from a URL (the checkout served over loopback HTTP, npm packages from the registry), and the
 * compiled executable (when Deno's runtime binary can be had).
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { fileURLToPath } from "node:url";
import { fails, fixture, ok, repoPath } from "./_harness.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };

/** The `deno run` flags the README gives for running from a URL, before the main module. */
const URL_RUN_FLAGS = ["run", "-A", "--unstable-raw-imports", "--import-map"] as const;

/** Runs deno with `args`; fails the test with its stderr when it fails. */
async function deno(
  args: string[],
  opts: { cwd?: string; env?: Record<string, string> } = {},
): Promise<{ stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: opts.cwd ?? repoPath(""),
    env: opts.env ?? {},
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  const stderr = new TextDecoder().decode(out.stderr);
  if (!out.success) throw new Error(`deno ${args.join(" ")} failed:\n${stderr}`);
  return { stdout, stderr };
}

const tempDirs: string[] = [];
globalThis.addEventListener("unload", () => {
  for (const dir of tempDirs) {
    try {
      Deno.removeSync(dir, { recursive: true });
    } catch {
      // Already gone, or still held by a child on Windows: the OS cleans temp folders.
    }
  }
});

/** A fresh temporary folder, removed when the test file ends. */
async function tempDir(prefix: string): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix });
  tempDirs.push(dir);
  return dir;
}

let bundled: Promise<string> | undefined;

/**
 * `deno task bundle`, once per file; the result is copied alone into a fresh folder so nothing
 * from the checkout (deno.json, node_modules, sources) is within reach when it runs.
 */
function bundle(): Promise<string> {
  bundled ??= (async () => {
    await deno(["task", "bundle"]);
    const dir = await tempDir("remcp-dist-");
    const path = `${dir}/remcp.js`;
    await Deno.copyFile(repoPath("dist/remcp.js"), path);
    return path;
  })();
  return bundled;
}

/**
 * Environment for a child with an empty DENO_DIR (so nothing cached helps it) and no REMCP_*
 * settings from the caller; `offline` also points every download at a closed port.
 */
async function isolatedEnv(offline: boolean): Promise<Record<string, string>> {
  const env = Object.fromEntries(
    Object.entries(Deno.env.toObject()).filter(([k]) => !k.startsWith("REMCP_")),
  );
  Object.assign(env, {
    DENO_DIR: await tempDir("remcp-denodir-"),
    REMCP_STATE_DIR: await tempDir("remcp-state-"),
    REMCP_LOG_LEVEL: "warn",
    NO_COLOR: "1",
  });
  if (offline) {
    Object.assign(env, {
      NPM_CONFIG_REGISTRY: "http://127.0.0.1:9/",
      HTTP_PROXY: "http://127.0.0.1:9",
      HTTPS_PROXY: "http://127.0.0.1:9",
      ALL_PROXY: "http://127.0.0.1:9",
      NO_PROXY: "",
    });
  } else {
    // The loopback server must not go through a proxy.
    env.NO_PROXY = [env.NO_PROXY, "127.0.0.1", "localhost"].filter(Boolean).join(",");
  }
  return env;
}

/** Starts an MCP server with `command args` and connects the official client over stdio. */
async function connect(
  command: string,
  args: string[],
  env: Record<string, string>,
  cwd: string,
): Promise<{ client: Client; stderr: () => string; close(): Promise<void> }> {
  const transport = new StdioClientTransport({ command, args, env, cwd, stderr: "pipe" });
  const chunks: string[] = [];
  transport.stderr?.on("data", (d: Uint8Array) => chunks.push(new TextDecoder().decode(d)));
  const client = new Client({ name: "remcp-distribution-test", version: "0.0.0" });
  await client.connect(transport);
  return {
    client,
    stderr: () => chunks.join(""),
    close: () => client.close().catch(() => {}),
  };
}

/**
 * The journey every distribution must carry: the supervisor answers, a worker process analyses
 * a fixture, and a sandbox process runs an execute script.
 */
async function journey(client: Client): Promise<void> {
  const info = client.getServerVersion();
  assert.equal(info?.name, "remcp");
  const opened = await ok(client, "open_database", { path: fixture("elf_aarch64_gcc_O2") });
  await ok(client, "wait_for_analysis", { database: opened.database, timeout: 60 });
  const dis = await ok(client, "disassemble", { address: "main", count: 8 });
  const items = dis.items as { mnemonic: string }[];
  assert.equal(items.length, 8);
  assert.ok(items.every((i) => i.mnemonic.length > 0));
  const run = await ok(client, "execute", {
    code: `const info = await invoke("get_database_info", {}); ({ format: info.format })`,
  });
  assert.deepEqual(run.result, { format: "elf" });
  assert.equal(run.invokes, 1);
}

/** Command lines of this user's processes (Linux), arguments joined by spaces. */
async function commandLines(): Promise<string[]> {
  const lines: string[] = [];
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const raw = await Deno.readTextFile(`/proc/${entry.name}/cmdline`);
      lines.push(raw.split("\0").join(" "));
    } catch {
      // Gone already.
    }
  }
  return lines;
}

/** Names under a folder, recursively, relative to it. */
async function listTree(dir: string, prefix = ""): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const rel = `${prefix}${entry.name}`;
    names.push(rel);
    if (entry.isDirectory) names.push(...await listTree(`${dir}/${entry.name}`, `${rel}/`));
  }
  return names;
}

Deno.test("deno task bundle writes one self-contained file", async () => {
  const path = await bundle();
  const text = await Deno.readTextFile(path);
  // Only built-in modules are imported; WASM travels inside as bytes.
  const { stdout } = await deno(["info", "--no-config", "--json", path], {
    env: await isolatedEnv(true),
  });
  const graph = JSON.parse(stdout) as { modules: { specifier: string }[] };
  const foreign = graph.modules.map((m) => m.specifier).filter((s) => !s.startsWith("node:"));
  assert.deepEqual(foreign, [new URL(`file://${path}`).href], "the bundle imports only node:");
  assert.ok(!text.includes(repoPath("src")), "no path into the source tree");
  assert.ok(!/"[A-Za-z0-9+/]{10000,}/.test(text), "WASM literals moved out of the parse path");
  assert.ok(!/\bDeno\.Command\(\s*"deno"/.test(text), "nothing spawns deno by name");
});

Deno.test("bundle serves MCP with an empty DENO_DIR and no network", e2e, async () => {
  const path = await bundle();
  const env = await isolatedEnv(true);
  // The sandbox's file goes to a temporary folder of this test's own, so it is told apart.
  const tmp = env.TMPDIR = await tempDir("remcp-tmp-");
  const cwd = fileURLToPath(new URL(".", `file://${path}`));
  // Exactly the README command, run where the user saved the file.
  const s = await connect(Deno.execPath(), ["run", "-A", "remcp.js"], env, cwd);
  let sandboxFile: string | undefined;
  try {
    await journey(s.client);
    if (Deno.build.os === "linux") {
      const lines = await commandLines();
      const worker = lines.find((c) => c.includes(path) && / worker\b/.test(c));
      assert.ok(worker?.includes("--no-config"), `a worker runs the bundle: ${lines}`);
      // Sandboxes run the sandbox's own bundle, which the supervisor wrote to a private file.
      const sandbox = lines.find((c) => c.includes(`${tmp}/remcp-sandbox-`));
      assert.ok(sandbox?.includes("--no-config"), `a sandbox runs its own bundle: ${lines}`);
      sandboxFile = /\S*remcp-sandbox-\S*\.js/.exec(sandbox!)![0];
    }
  } catch (err) {
    throw new Error(`${(err as Error).message}\n--- server stderr ---\n${s.stderr()}`);
  } finally {
    await s.close();
  }
  // The supervisor removes the sandbox's file when it ends.
  if (sandboxFile) await waitUntilGone(sandboxFile);
  // Supervisor, worker and sandbox all ran from the bundle: nothing was fetched or cached.
  const cached = await listTree(env.DENO_DIR!);
  assert.deepEqual(cached.filter((n) => /^(npm\/.|remote|deps|gen\/)/.test(n)), []);
});

/** Resolves once `path` no longer exists; fails after 30 s. */
async function waitUntilGone(path: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await Deno.stat(path);
    } catch {
      return;
    }
    if (Date.now() > deadline) {
      throw new Error(`${path} is still there 30 s after the server ended`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Why no Python worker can run here, or undefined when one can. */
async function noPython(): Promise<string | undefined> {
  const python = Deno.env.get("REMCP_PYTHON") ?? "python3";
  try {
    const out = await new Deno.Command(python, { args: ["--version"], stdout: "null" }).output();
    return out.success ? undefined : `${python} --version failed`;
  } catch (err) {
    return `${python} cannot run: ${(err as Error).message}`;
  }
}

const pythonMissing = await noPython();
if (pythonMissing) console.log(`skipping "bundle carries the Python worker": ${pythonMissing}`);

Deno.test({
  name: "bundle probes the Python engines and never carries the test engine",
  ignore: pythonMissing !== undefined,
  ...e2e,
  async fn() {
    const path = await bundle();
    const env: Record<string, string> = {
      ...await isolatedEnv(true),
      REMCP_ENABLE_TEST_BACKEND: "1",
    };
    const cwd = fileURLToPath(new URL(".", `file://${path}`));
    const s = await connect(Deno.execPath(), ["run", "-A", "remcp.js"], env, cwd);
    try {
      const listed = (await ok(s.client, "list_backends")).items as {
        name: string;
        available: boolean;
        reason?: string;
      }[];
      // The probe script travels inside the bundle: each Python engine says why it is missing.
      for (const name of ["ghidra", "ida", "binja"]) {
        const b = listed.find((x) => x.name === name);
        assert.ok(b && (b.available || (b.reason ?? "").length > 20), `${name}: ${b?.reason}`);
      }
      // Test scaffolding exists only in a source checkout, whatever the environment says.
      assert.ok(!listed.some((b) => b.name === "pytest-echo"), "no test engine in the bundle");
      const refused = await fails(s.client, "open_database", {
        path: fixture("elf_x86_64_gcc_O0"),
        backend: "pytest-echo",
      });
      assert.ok(["InvalidArgument", "Unsupported"].includes(refused.error_type), refused.error);
    } catch (err) {
      throw new Error(`${(err as Error).message}\n--- server stderr ---\n${s.stderr()}`);
    } finally {
      await s.close();
    }
  },
});

Deno.test("bundle prints --help with every REMCP_ variable and --version", async () => {
  const path = await bundle();
  const env = await isolatedEnv(true);
  const { stdout: help } = await deno(["run", "-A", path, "--help"], { env });
  for (const mode of ["stdio", "serve", "proxy"]) {
    assert.match(help, new RegExp(`^  ${mode}\\b`, "m"));
  }
  assert.match(help, /--allow-write/);
  const { ENV_VARS, VERSION } = await import("../src/config.ts");
  for (const v of ENV_VARS) {
    assert.match(help, new RegExp(`${v.name}\\s.*\\(default: `), `${v.name} is listed`);
  }
  const { stdout: version } = await deno(["run", "-A", path, "--version"], { env });
  assert.equal(version.trim(), `remcp ${VERSION}`);
});

/**
 * deno.json's imports as a standalone import map, for modules run from a URL (deno.json is not
 * read then). deno.json maps a package's subpaths implicitly ("iced-x86" also covers
 * "iced-x86/iced_x86_bg.wasm"); a plain import map needs the "pkg/" entry spelled out.
 */
function expectedImportMap(imports: Record<string, string>): { imports: Record<string, string> } {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(imports)) {
    out[key] = value;
    const pkg = /^npm:(@?[^@/]+(?:\/[^@/]+)?@[^/]+)$/.exec(value);
    if (pkg && /^(@[^/]+\/)?[^/@]+$/.test(key)) out[`${key}/`] = `npm:/${pkg[1]}/`;
  }
  return { imports: out };
}

Deno.test("import_map.json agrees with deno.json imports", async () => {
  const config = JSON.parse(await Deno.readTextFile(repoPath("deno.json")));
  const map = JSON.parse(await Deno.readTextFile(repoPath("import_map.json")));
  const expected = expectedImportMap(config.imports);
  assert.deepEqual(
    map,
    expected,
    `regenerate import_map.json:\n${JSON.stringify(expected, null, 2)}`,
  );
});

/** Why the npm registry cannot be used here, or undefined when it can. */
async function npmUnreachable(): Promise<string | undefined> {
  const registry = Deno.env.get("NPM_CONFIG_REGISTRY") ?? "https://registry.npmjs.org/";
  try {
    const res = await fetch(new URL("zod", registry), { signal: AbortSignal.timeout(5000) });
    await res.body?.cancel();
    return res.ok ? undefined : `npm registry ${registry} answered ${res.status}`;
  } catch (err) {
    return `npm registry ${registry} unreachable: ${(err as Error).message}`;
  }
}

const noNpm = await npmUnreachable();
if (noNpm) console.log(`skipping "runs from a URL": ${noNpm}`);

Deno.test({
  name: "deno run from a URL with the README command, workers and sandbox included",
  ignore: noNpm !== undefined,
  ...e2e,
  async fn() {
    const root = repoPath("");
    const server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      async (req) => {
        const rel = decodeURIComponent(new URL(req.url).pathname).replace(/^\/+/, "");
        if (rel.split("/").includes("..")) return new Response("bad path", { status: 400 });
        try {
          // As raw.githubusercontent.com serves source: text/plain, the extension decides.
          return new Response(await Deno.readFile(`${root}/${rel}`), {
            headers: { "content-type": "text/plain; charset=utf-8" },
          });
        } catch {
          return new Response("not found", { status: 404 });
        }
      },
    );
    const base = `http://127.0.0.1:${server.addr.port}`;
    const env = await isolatedEnv(false);
    const cwd = await tempDir("remcp-url-cwd-");
    const args = [...URL_RUN_FLAGS, `${base}/import_map.json`, `${base}/src/main.ts`];
    let s;
    try {
      s = await connect(Deno.execPath(), args, env, cwd);
      await journey(s.client);
    } catch (err) {
      throw new Error(`${(err as Error).message}\n--- server stderr ---\n${s?.stderr() ?? ""}`);
    } finally {
      await s?.close();
      await server.shutdown();
    }
  },
});

/** Why `deno compile` cannot run here, or undefined when it can. */
async function compileUnavailable(): Promise<string | undefined> {
  if (Deno.env.get("DENORT_BIN")) return undefined;
  const dir = await Deno.makeTempDir({ prefix: "remcp-compile-probe-" });
  try {
    await Deno.writeTextFile(`${dir}/probe.ts`, "console.log(1);\n");
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["compile", "--no-config", "-o", `${dir}/probe`, `${dir}/probe.ts`],
      cwd: dir,
      env: { NO_COLOR: "1" },
      stdout: "null",
      stderr: "piped",
      signal: AbortSignal.timeout(30_000),
    }).output();
    if (out.success) return undefined;
    const why = new TextDecoder().decode(out.stderr).split("Stack backtrace")[0]!
      .replace(/\s+/g, " ").replace(/^.*?Caused by: /, "").trim();
    return `deno compile cannot get Deno's runtime binary (set DENORT_BIN): ${why}`;
  } catch (err) {
    return `deno compile probe failed: ${(err as Error).message}`;
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

const noCompile = await compileUnavailable();
if (noCompile) console.log(`skipping "compiled executable": ${noCompile}`);

Deno.test({
  name: "compiled executable for this platform serves MCP and re-launches itself",
  ignore: noCompile !== undefined,
  ...e2e,
  async fn() {
    const tasks = JSON.parse(await Deno.readTextFile(repoPath("deno.json"))).tasks;
    const task = `compile:${Deno.build.target}`;
    assert.ok(task in tasks, `deno.json has a ${task} task`);
    await deno(["task", task], { env: Deno.env.toObject() });
    const exe = repoPath(
      `dist/remcp-${Deno.build.target}${Deno.build.os === "windows" ? ".exe" : ""}`,
    );
    const env = await isolatedEnv(true);
    const { stdout } = await new Deno.Command(exe, { args: ["--version"], env }).output();
    assert.match(new TextDecoder().decode(stdout), /^remcp \d/);
    const s = await connect(exe, [], env, await tempDir("remcp-exe-cwd-"));
    try {
      await journey(s.client);
    } catch (err) {
      throw new Error(`${(err as Error).message}\n--- server stderr ---\n${s.stderr()}`);
    } finally {
      await s.close();
    }
  },
});
