/** End-to-end: a slow engine probe never holds up other requests, and its wait is bounded. */
import assert from "node:assert/strict";
import { ok, startRemcp } from "./_harness.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };

Deno.test(
  "list_backends with a hanging Python answers others meanwhile and gives up",
  e2e,
  async () => {
    if (Deno.build.os === "windows") return;
    const dir = await Deno.makeTempDir({ prefix: "remcp-probe-" });
    const python = `${dir}/python3`;
    await Deno.writeTextFile(python, "#!/bin/sh\nexec sleep 60\n");
    await Deno.chmod(python, 0o755);
    const h = await startRemcp({ env: { REMCP_PYTHON: python } });
    try {
      let backendsDone = false;
      const backends = ok(h.client, "list_backends").finally(() => backendsDone = true);
      // The probe was synchronous: every other request waited for the interpreter.
      await ok(h.client, "list_databases");
      assert.equal(backendsDone, false, "list_databases answered while the probe ran");
      const items = (await backends).items as {
        name: string;
        available: boolean;
        reason?: string;
      }[];
      const ghidra = items.find((b) => b.name === "ghidra")!;
      assert.equal(ghidra.available, false);
      assert.match(ghidra.reason ?? "", /did not finish the engine probe within 10 s/);
      assert.equal(items.find((b) => b.name === "embedded")?.available, true);
    } finally {
      await h.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
);
