/**
 * Every temporary file or folder the code, the tests and the benchmarks make is named `remcp-…`,
 * so that nothing of remcp lands in the system's temporary folder under an anonymous name: a
 * benchmark's temporary store without a prefix left hundreds of `<hex>.sqlite`
 * and `.sqlite.lock` files there, and prefix-less state folders piled up beside them.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { repoPath } from "./_harness.ts";

const CALL = /\bmakeTemp(?:Dir|File)(?:Sync)?\(([^)]*)\)/g;

function* sources(dir: string): Generator<string> {
  for (const e of Deno.readDirSync(dir)) {
    const path = join(dir, e.name);
    if (e.isDirectory && e.name !== "fixtures" && e.name !== "node_modules") yield* sources(path);
    else if (e.isFile && e.name.endsWith(".ts")) yield path;
  }
}

Deno.test("every temporary file and folder is made with a remcp- prefix", () => {
  const bad: string[] = [];
  let calls = 0;
  for (const top of ["src", "workers", "tests", "bench"]) {
    for (const path of sources(repoPath(top))) {
      const text = Deno.readTextFileSync(path);
      for (const m of text.matchAll(CALL)) {
        calls++;
        // A literal prefix says remcp; a prefix passed in (a constant, a parameter) is checked
        // where it is written; `dir:` puts the entry inside a folder that is already named.
        const args = m[1]!;
        const literal = /prefix: "([^"]*)"/.exec(args)?.[1];
        const named = literal !== undefined
          ? /^(remcp[-_]|\.tmp-)/.test(literal)
          : /\bprefix\b/.test(args) || /\bdir:/.test(args);
        if (!named) {
          const line = text.slice(0, m.index).split("\n").length;
          bad.push(`${path.slice(repoPath(".").length)}:${line}: ${m[0]}`);
        }
      }
    }
  }
  assert.ok(calls > 20, `found only ${calls} calls: is the pattern stale?`);
  assert.deepEqual(bad, [], 'name these with { prefix: "remcp-…" } and remove them in finally');
});

/** Shell scripts and Python files of the project (fixtures' sources excluded, their build kept). */
function* scripts(dir: string): Generator<string> {
  for (const e of Deno.readDirSync(dir)) {
    const path = join(dir, e.name);
    if (e.isDirectory) {
      if (!["node_modules", ".git", "bin", "src", "decompile"].includes(e.name)) {
        yield* scripts(path);
      }
    } else if (e.isFile && (/\.(sh|py)$/.test(e.name) || path.endsWith(join(".ci", "run")))) {
      yield path;
    }
  }
}

Deno.test("shell and Python temporary files are named remcp- too", () => {
  // `mktemp` with no template and Python's `tempfile` with no prefix name their entries like
  // anyone else's; the CI's log went to /tmp/tmp.XXXXXXXXXX this way on every run.
  const bad: string[] = [];
  let files = 0;
  for (const path of scripts(repoPath("."))) {
    files++;
    const text = Deno.readTextFileSync(path);
    const lines = text.split("\n");
    lines.forEach((line, i) => {
      const shell = /\bmktemp\b(?![^)\n]*remcp[-_.])/.test(line) && !/^\s*#/.test(line);
      const python = /\btempfile\.(mkdtemp|mkstemp|TemporaryDirectory|NamedTemporaryFile)\(/
        .test(line) && !/prefix="remcp[-_]/.test(line);
      if (shell || python) bad.push(`${path.slice(repoPath(".").length)}:${i + 1}: ${line.trim()}`);
    });
  }
  assert.ok(files > 3, `found only ${files} scripts: is the walk stale?`);
  assert.deepEqual(bad, [], 'give mktemp a remcp- template (python: prefix="remcp-")');
});
