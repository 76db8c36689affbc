/**
 * The script tools of one supervisor: loaded from the tools folder at start, defined and deleted
 * at run time, persisted on request. Broken files are reported, never fatal.
 */
import { basename, dirname, join, resolve } from "node:path";
import { RemcpError, toErrorPayload } from "../errors.ts";
import type { Host } from "../supervisor/host.ts";
import { scriptToolHandler } from "./run.ts";
import { MAX_SOURCE_BYTES, specProgram } from "./source.ts";
import { checkSpec, type ScriptToolDef } from "./spec.ts";

/** A tool file that could not be loaded. */
export interface ScriptToolProblem {
  file: string;
  error: string;
  error_type: string;
}

/** Time a tool file gets to evaluate to its spec: wall clock (sandbox start included), and CPU. */
const LOAD_TIMEOUT_MS = 5000;
const LOAD_CPU_MS = 2000;
const TOOL_FILE = /\.m?js$/;

/** The script tools registry; the supervisor owns one. */
export class ScriptTools {
  readonly #sup: Host;
  readonly #defs = new Map<string, ScriptToolDef>();
  #problems: ScriptToolProblem[] = [];
  #dir: string | undefined;
  #ready: Promise<void> = Promise.resolve();
  #loading = false;

  constructor(sup: Host) {
    this.#sup = sup;
  }

  /** The tools folder, when one is configured. */
  get dir(): string | undefined {
    return this.#dir;
  }

  /** Whether the tools folder is still being loaded. */
  get loading(): boolean {
    return this.#loading;
  }

  /** Settles when the tools folder has been loaded (at once when there is none). */
  ready(): Promise<void> {
    return this.#ready;
  }

  /** Starts loading every `*.js` file of `dir` in the background. */
  startLoading(dir: string): void {
    this.#dir = resolve(dir);
    this.#loading = true;
    this.#ready = this.#loadDir(this.#dir).finally(() => {
      this.#loading = false;
    });
  }

  /** Loaded tools, by name. */
  get defs(): ReadonlyMap<string, ScriptToolDef> {
    return this.#defs;
  }

  /** Files of the tools folder that failed to load. */
  get problems(): readonly ScriptToolProblem[] {
    return this.#problems;
  }

  /**
   * Evaluates `source` in the sandbox and checks the spec it declares.
   *
   * @throws {RemcpError} when the file does not evaluate or its spec is invalid
   */
  async compile(source: string, origin: string): Promise<ScriptToolDef> {
    const program = specProgram(source);
    const r = await this.#sup.sandbox().run(program, {
      timeoutMs: LOAD_TIMEOUT_MS,
      limits: { cpuMs: LOAD_CPU_MS, maxOutputBytes: MAX_SOURCE_BYTES },
      invoke: () => {
        throw new RemcpError(
          "InvalidArgument",
          "A tool file cannot invoke tools while it is loaded: call invoke inside run()",
        );
      },
    });
    if (!r.ok) {
      throw new RemcpError(
        r.error.code,
        `The tool file failed to evaluate: ${r.error.message}`,
        r.error.detail,
      );
    }
    return checkSpec(r.result, source, origin);
  }

  /**
   * Adds (or replaces) a script tool and announces the new listing.
   *
   * @throws {RemcpError} InvalidArgument when the name belongs to a built-in tool
   */
  add(def: ScriptToolDef): { replaced: boolean } {
    const name = def.spec.name;
    this.assertDefinable(name);
    const replaced = this.#defs.has(name);
    this.#defs.set(name, def);
    this.#sup.register({ spec: def.spec, kind: "script", handler: scriptToolHandler(def) });
    return { replaced };
  }

  /**
   * Refuses a name that belongs to a built-in tool.
   *
   * @throws {RemcpError} InvalidArgument naming the built-in
   */
  assertDefinable(name: string): void {
    const existing = this.#sup.entries.get(name);
    if (existing && existing.kind !== "script") {
      throw new RemcpError(
        "InvalidArgument",
        `"${name}" is a built-in ${existing.kind} tool and cannot be replaced by a script tool; ` +
          `use a prefix, such as "my_${name}"`,
        { name },
      );
    }
  }

  /**
   * Removes a script tool and announces the new listing.
   *
   * @throws {RemcpError} NotFound when there is no script tool of that name
   */
  remove(name: string): ScriptToolDef {
    const def = this.#defs.get(name);
    if (!def) {
      const builtIn = this.#sup.entries.has(name);
      throw new RemcpError(
        builtIn ? "InvalidArgument" : "NotFound",
        builtIn
          ? `"${name}" is a built-in tool; only script tools can be deleted`
          : `No script tool named "${name}"; list_script_tools shows them`,
        { name, tools: [...this.#defs.keys()] },
      );
    }
    this.#defs.delete(name);
    this.#sup.unregister(name);
    return def;
  }

  /** The file `def` lives in once persisted: its own file in the folder, or `<name>.js`. */
  fileFor(def: ScriptToolDef, previous?: ScriptToolDef): string {
    const dir = this.#requireDir();
    for (const d of [def, previous]) {
      if (d && dirname(d.origin) === dir && TOOL_FILE.test(d.origin)) return d.origin;
    }
    return join(dir, `${def.spec.name}.js`);
  }

  /** Writes `def`'s source to `file` in the tools folder (atomically). */
  async persist(def: ScriptToolDef, file: string): Promise<void> {
    const dir = this.#requireDir();
    await Deno.mkdir(dir, { recursive: true });
    const tmp = join(dir, `.${basename(file)}.${crypto.randomUUID().slice(0, 8)}.tmp`);
    try {
      await Deno.writeTextFile(tmp, def.source, { mode: 0o644 });
      await Deno.rename(tmp, file);
    } catch (err) {
      await Deno.remove(tmp).catch(() => {});
      throw new RemcpError(
        "WriteFailed",
        `Cannot write ${file}: ${err instanceof Error ? err.message : String(err)}`,
        { file },
      );
    }
  }

  /** Deletes `def`'s file when it lives in the tools folder; returns the file, if any. */
  async unpersist(def: ScriptToolDef): Promise<string | undefined> {
    const dir = this.#requireDir();
    if (dirname(def.origin) !== dir) return undefined;
    try {
      await Deno.remove(def.origin);
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return undefined;
      throw new RemcpError(
        "WriteFailed",
        `Cannot delete ${def.origin}: ${err instanceof Error ? err.message : String(err)}`,
        { file: def.origin },
      );
    }
    return def.origin;
  }

  #requireDir(): string {
    if (this.#dir === undefined) {
      throw new RemcpError(
        "InvalidArgument",
        "No tools folder is configured: start remcp with --tools-dir DIR or REMCP_TOOLS_DIR to " +
          "persist tools",
      );
    }
    return this.#dir;
  }

  async #loadDir(dir: string): Promise<void> {
    let files: string[];
    try {
      files = [];
      for await (const e of Deno.readDir(dir)) {
        if (e.isFile && TOOL_FILE.test(e.name)) files.push(join(dir, e.name));
      }
      files.sort();
    } catch (err) {
      this.#problem(dir, err, "Cannot read the tools folder");
      return;
    }
    const loaded = await Promise.allSettled(files.map(async (file) => {
      const stat = await Deno.stat(file);
      if (stat.size > MAX_SOURCE_BYTES) {
        throw new RemcpError(
          "InvalidArgument",
          `A tool file is limited to ${MAX_SOURCE_BYTES} bytes`,
        );
      }
      return await this.compile(await Deno.readTextFile(file), file);
    }));
    loaded.forEach((r, i) => {
      const file = files[i]!;
      if (r.status === "rejected") return this.#problem(file, r.reason);
      const name = r.value.spec.name;
      const first = this.#defs.get(name);
      if (first) {
        return this.#problem(
          file,
          new RemcpError("InvalidArgument", `Tool "${name}" is already defined by ${first.origin}`),
        );
      }
      try {
        this.add(r.value);
      } catch (err) {
        this.#problem(file, err);
      }
    });
    if (this.#defs.size > 0 || this.#problems.length > 0) {
      this.#sup.log.info(
        `script tools: ${this.#defs.size} loaded, ${this.#problems.length} failed from ${dir}`,
      );
    }
  }

  #problem(file: string, err: unknown, prefix?: string): void {
    const p = err instanceof RemcpError ? toErrorPayload(err) : undefined;
    const message = p?.error ?? (err instanceof Error ? err.message : String(err));
    const error = prefix ? `${prefix}: ${message}` : message;
    this.#problems.push({ file, error, error_type: p?.error_type ?? "InvalidArgument" });
    this.#sup.log.warn(`script tool ${file} skipped: ${error}`);
  }
}
