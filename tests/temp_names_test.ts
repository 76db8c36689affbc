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
