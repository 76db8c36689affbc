/**
 * The README's "A first session" replayed: on the /bin/ls it was taken from (Debian 12's, known by
 * its SHA-256), the numbers it shows are the numbers remcp prints now.
 */
import assert from "node:assert/strict";
import { ok, repoPath, startRemcp } from "./_harness.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const LS = "/bin/ls";
const LS_SHA256 = "cb30d69b24245bf2ecdc9e7f53bbad19159999970b6d82c0c00c7d32d9e37aa4";

/** The `> tool {args}` lines of the session and the result line under each. */
async function sessionCalls(): Promise<
  { tool: string; args: Record<string, unknown>; shown: string }[]
> {
  const readme = await Deno.readTextFile(repoPath("README.md"));
  const start = readme.indexOf("## A first session");
  const block = readme.slice(readme.indexOf("```text", start), readme.indexOf("```\n\n", start));
  const lines = block.split("\n");
  const calls = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^> (\w+) (\{.*\})$/.exec(lines[i]!);
    if (m) calls.push({ tool: m[1]!, args: JSON.parse(m[2]!), shown: lines[i + 1] ?? "" });
  }
  return calls;
}

/** Top-level `"key":number` pairs of a shown (possibly elided) result line. */
function shownNumbers(line: string, keys: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of keys) {
    const all = [...line.matchAll(new RegExp(`"${k}":(\\d+)`, "g"))];
    // The last match is the top-level one in these results (items come first).
    if (all.length > 0) out[k] = Number(all[all.length - 1]![1]);
  }
  return out;
}

async function sha256(path: string): Promise<string | undefined> {
  try {
    const digest = await crypto.subtle.digest("SHA-256", await Deno.readFile(path));
    return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
  } catch {
    return undefined;
  }
}

Deno.test({
  name: "the README's first session shows the numbers remcp prints",
  ...e2e,
  ignore: (await sha256(LS)) !== LS_SHA256,
  async fn() {
    const calls = await sessionCalls();
    assert.ok(calls.length >= 5, "the session's calls are found");
    const h = await startRemcp();
    try {
      const checked: Record<string, string[]> = {
        list_functions: ["total"],
        function_summary: [
          "size",
          "blocks",
          "instructions",
          "cyclomatic_complexity",
          "callers_total",
          "callees_total",
          "strings_total",
          "imports_total",
        ],
        find_code_by_string: ["total"],
      };
      let compared = 0;
      for (const c of calls) {
        if (c.tool === "rename" || c.tool === "execute") continue;
        const real = await ok(h.client, c.tool, c.args);
        if (c.tool === "open_database") {
          await ok(h.client, "wait_for_analysis", { database: real.database, timeout: 600 });
        }
        const keys = checked[c.tool];
        if (!keys) continue;
        const shown = shownNumbers(c.shown, keys);
        for (const [k, v] of Object.entries(shown)) {
          assert.equal(
            real[k],
            v,
            `${c.tool} ${k}: the README shows ${v}, remcp prints ${real[k]}`,
          );
          compared++;
        }
      }
      assert.ok(compared >= 5, `compared ${compared} numbers`);
    } finally {
      await h.close();
    }
  },
});
