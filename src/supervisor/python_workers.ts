/**
 * Python workers (ghidra, ida, binja): the scripts ship inside remcp and are written, with the
 * JSON catalog they check arguments against, to `<stateDir>/python/<version>-<hash>/` on first
 * use; the pool spawns `python3 <cache>/remcp_worker.py --backend B --catalog <json> … PATH`.
 * Also detects which engines this machine has, without importing any of them.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import type { Config } from "../config.ts";
import { VERSION } from "../config.ts";
import { RemcpError } from "../errors.ts";
import { WORKER_TOOLS } from "../protocol/catalog/all.ts";
import { jsonCatalog } from "../protocol/catalog/json_catalog.ts";
import type { ToolSpec } from "../protocol/catalog/spec.ts";
import { saveSpec, statusSpec } from "../../workers/internal_tools.ts";
import { ENTRY_SCRIPT, PROBE_SCRIPT, PYTHON_SCRIPTS } from "../../workers/python/scripts.ts";
import type { BackendInfo } from "./backend_info.ts";
import type { Spawner } from "./worker_process.ts";

/** The engine backends that run as Python workers. */
export const PYTHON_BACKENDS = ["ghidra", "ida", "binja"] as const;

/**
 * Test scaffolding, not a backend: an engine-free Python tool module that exists only when
 * REMCP_ENABLE_TEST_BACKEND=1, so the shared runtime is tested through the real supervisor.
 */
export const TEST_BACKEND = "pytest-echo";

/**
 * The test engine's module, only when the tests enable it and only from a source checkout: it
 * is not among the shipped scripts, so a bundle or an executable never carries it.
 */
function testScripts(env: Record<string, string | undefined>): Record<string, string> {
  if (!testBackendEnabled(env)) return {};
  const source = new URL("../../workers/python/tests/pytest_echo.py", import.meta.url);
  if (source.protocol !== "file:") return {};
  try {
    return { "remcp/engines/pytest_echo.py": Deno.readTextFileSync(source) };
  } catch {
    return {};
  }
}

/** Whether the environment enables {@link TEST_BACKEND}. */
export function testBackendEnabled(env: Record<string, string | undefined>): boolean {
  return env.REMCP_ENABLE_TEST_BACKEND === "1";
}

/** Whether `backend` runs as a Python worker. */
export function isPythonBackend(backend: string): boolean {
  return (PYTHON_BACKENDS as readonly string[]).includes(backend) || backend === TEST_BACKEND;
}

/**
 * The signal sent beside notifications/cancelled when a call to `backend` is aborted: idalib
 * runs long operations inside native code, where only a signal reaches the worker.
 */
export function cancelSignalFor(backend: string): Deno.Signal | undefined {
  return backend === "ida" && Deno.build.os !== "windows" ? "SIGUSR1" : undefined;
}

/** The specs a Python worker serves: the catalog plus the internal `_status` and `_save`. */
export function pythonCatalogSpecs(): readonly ToolSpec[] {
  return [...WORKER_TOOLS, statusSpec, saveSpec] as unknown as readonly ToolSpec[];
}

/** Writes the scripts and catalog to the cache folder (once per content) and spawns workers. */
export class PythonWorkers {
  #config: Config;
  #specs: () => readonly ToolSpec[];
  #dir: string | undefined;

  #env: Record<string, string | undefined>;

  constructor(
    config: Config,
    specs: () => readonly ToolSpec[] = pythonCatalogSpecs,
    env: Record<string, string | undefined> = Deno.env.toObject(),
  ) {
    this.#config = config;
    this.#specs = specs;
    this.#env = env;
  }

  /**
   * The cache folder holding the scripts and `catalog.json`, written on first use. The folder
   * name carries a hash of everything in it, so different remcp builds never share one; it is
   * filled under a temporary name and renamed, so concurrent processes never see half of it.
   */
  ensureScripts(): string {
    if (this.#dir) return this.#dir;
    const catalog = JSON.stringify(jsonCatalog(this.#specs(), VERSION), null, 1);
    const scripts = { ...PYTHON_SCRIPTS, ...testScripts(this.#env) };
    const hash = createHash("sha256");
    for (const [path, text] of Object.entries(scripts).sort(([a], [b]) => a < b ? -1 : 1)) {
      hash.update(path).update("\0").update(text).update("\0");
    }
    hash.update(catalog);
    const root = join(this.#config.stateDir, "python");
    const dir = join(root, `${VERSION}-${hash.digest("hex").slice(0, 16)}`);
    if (!exists(join(dir, ".complete"))) {
      Deno.mkdirSync(root, { recursive: true });
      const tmp = Deno.makeTempDirSync({ dir: root, prefix: ".tmp-" });
      for (const [path, text] of Object.entries(scripts)) {
        const target = join(tmp, path);
        Deno.mkdirSync(join(target, ".."), { recursive: true });
        Deno.writeTextFileSync(target, text);
      }
      Deno.writeTextFileSync(join(tmp, "catalog.json"), catalog);
      Deno.writeTextFileSync(join(tmp, ".complete"), "");
      try {
        Deno.renameSync(tmp, dir);
      } catch {
        // Another process won the race; its copy is identical.
        Deno.removeSync(tmp, { recursive: true });
      }
    }
    this.#dir = dir;
    return dir;
  }

  /** The spawner the pool uses for `backend`. */
  spawner(backend: string): Spawner {
    return (args, env) => {
      const dir = this.ensureScripts();
      const c = this.#config;
      const flags = [
        "--catalog",
        join(dir, "catalog.json"),
        "--state-dir",
        c.stateDir,
        "--max-output-bytes",
        String(c.maxOutputBytes),
        ...(c.allowScripts ? ["--allow-scripts"] : []),
        ...(c.allowWrite ? ["--allow-write"] : []),
        ...(c.checkOutput ? ["--check-output"] : []),
      ];
      try {
        return new Deno.Command(c.python, {
          args: [join(dir, ENTRY_SCRIPT), ...flags, ...args],
          stdin: "piped",
          stdout: "piped",
          stderr: "piped",
          env: { ...env, PYTHONUNBUFFERED: "1", PYTHONIOENCODING: "utf-8" },
        }).spawn();
      } catch (err) {
        throw new RemcpError(
          "Unavailable",
          `Cannot start the ${backend} worker with ${c.python}: ${(err as Error).message}; ` +
            `install Python 3.10+ or set REMCP_PYTHON`,
          { backend, python: c.python },
        );
      }
    };
  }
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** What the probe says about one engine. */
export interface EngineProbe {
  available: boolean;
  version?: string | null;
  reason?: string;
}

/** What the probe says about this machine. */
export interface PythonProbe {
  python: { ok: boolean; version?: string; reason?: string };
  engines: Record<string, EngineProbe>;
}

/** Runs the engine probe with `python` (synchronously: list_backends and open need the answer). */
export function probePython(python: string, env: Record<string, string>): PythonProbe {
  let out: Deno.CommandOutput;
  try {
    out = new Deno.Command(python, {
      args: ["-c", PROBE_SCRIPT, python],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      env,
    }).outputSync();
  } catch (err) {
    const why = err instanceof Deno.errors.NotFound
      ? `${python} was not found (install Python 3.10+ or set REMCP_PYTHON)`
      : `${python} cannot run: ${(err as Error).message}`;
    return { python: { ok: false, reason: why }, engines: {} };
  }
  try {
    const parsed = JSON.parse(new TextDecoder().decode(out.stdout)) as Record<string, unknown>;
    const py = parsed.python as { ok: boolean; version: string };
    if (!py.ok) {
      return {
        python: {
          ok: false,
          version: py.version,
          reason: `${python} is Python ${py.version}; the workers need 3.10 or newer (set ` +
            `REMCP_PYTHON)`,
        },
        engines: {},
      };
    }
    delete parsed.python;
    return { python: { ok: true, version: py.version }, engines: parsed as PythonProbe["engines"] };
  } catch {
    const err = new TextDecoder().decode(out.stderr).trim().split("\n").slice(-1)[0] ?? "";
    return {
      python: { ok: false, reason: `${python} could not run the engine probe: ${err}` },
      engines: {},
    };
  }
}

/**
 * list_backends entries for the Python backends. The probe spawns Python, so it runs at most
 * once per call and only when an entry's availability is actually read (opening an embedded
 * database never pays for it).
 */
export function pythonBackendInfos(
  config: Config,
  env: Record<string, string>,
): BackendInfo[] {
  let probe: PythonProbe | undefined;
  const get = () => probe ??= probePython(config.python, env);
  const entry = (name: string, engine: string): BackendInfo => {
    const status = (): EngineProbe => {
      const p = get();
      if (!p.python.ok) return { available: false, reason: p.python.reason ?? "no Python" };
      if (name === TEST_BACKEND) return { available: true, version: p.python.version ?? null };
      return p.engines[name] ?? { available: false, reason: "the engine probe said nothing" };
    };
    return {
      name,
      engine,
      get available() {
        return status().available;
      },
      get version() {
        return status().version ?? undefined;
      },
      get reason() {
        return status().available ? undefined : status().reason;
      },
    };
  };
  return [
    entry("ghidra", "Ghidra through pyghidra (JDK 21)"),
    entry("ida", "IDA Pro 9+ through idalib"),
    entry("binja", "Binary Ninja headless API (Commercial and Ultimate editions)"),
    ...(testBackendEnabled(env)
      ? [entry(TEST_BACKEND, "test scaffolding: engine-free Python tool module")]
      : []),
  ];
}
