import assert from "node:assert/strict";
import { selfCommand, type SelfLaunch } from "./self_command.ts";

function launch(main: string, over: Partial<SelfLaunch> = {}): SelfLaunch {
  return { standalone: false, execPath: "/opt/deno", main, exists: () => true, ...over };
}

Deno.test("selfCommand() runs the compiled executable itself with the subcommand", () => {
  const cmd = selfCommand("worker", ["--backend", "embedded"], {
    ...launch("file:///ignored/main.ts"),
    standalone: true,
    execPath: "/usr/local/bin/remcp",
  });
  assert.deepEqual(cmd, {
    command: "/usr/local/bin/remcp",
    args: ["worker", "--backend", "embedded"],
  });
});

Deno.test("selfCommand() pins a checkout's deno.json whatever the cwd", () => {
  const cmd = selfCommand("sandbox", [], launch("file:///home/u/remcp/src/main.ts"));
  assert.equal(cmd.command, "/opt/deno");
  assert.deepEqual(cmd.args, [
    "run",
    "-A",
    "--quiet",
    "--no-prompt",
    "--config",
    "/home/u/remcp/deno.json",
    "file:///home/u/remcp/src/main.ts",
    "sandbox",
  ]);
});

Deno.test("selfCommand() runs a bundle with no config at all", () => {
  const cmd = selfCommand("worker", ["x"], launch("file:///tmp/dl/remcp.js"));
  assert.deepEqual(cmd.args.slice(4), [
    "--no-config",
    "--unstable-no-legacy-abort",
    "--unstable-worker-options",
    "file:///tmp/dl/remcp.js",
    "worker",
    "x",
  ]);
});

Deno.test("selfCommand() passes a remote main module its import map and raw imports", () => {
  const main = "https://raw.githubusercontent.com/o/remcp/v1/src/main.ts";
  const cmd = selfCommand("serve", ["--auto"], launch(main));
  assert.deepEqual(cmd.args.slice(4), [
    "--no-config",
    "--unstable-no-legacy-abort",
    "--unstable-worker-options",
    "--unstable-raw-imports",
    "--import-map",
    "https://raw.githubusercontent.com/o/remcp/v1/import_map.json",
    main,
    "serve",
    "--auto",
  ]);
});

Deno.test("selfCommand() runs a remote bundle with no config", () => {
  const cmd = selfCommand("sandbox", [], launch("https://example.com/remcp.js"));
  assert.deepEqual(cmd.args.slice(4), [
    "--no-config",
    "--unstable-no-legacy-abort",
    "--unstable-worker-options",
    "https://example.com/remcp.js",
    "sandbox",
  ]);
});

Deno.test("selfCommand() starts a bundle's sandboxes from the sandbox's own bundle", () => {
  const bundle = launch("file:///tmp/dl/remcp.js", {
    sandboxBundle: () => "/tmp/remcp-sandbox-1.js",
  });
  assert.deepEqual(selfCommand("sandbox", ["--connect", "/s"], bundle).args, [
    "run",
    "-A",
    "--quiet",
    "--no-prompt",
    "--no-config",
    "/tmp/remcp-sandbox-1.js",
    "sandbox",
    "--connect",
    "/s",
  ]);
  // Other subcommands, and a bundle that could not write the file, run the whole bundle.
  assert.ok(selfCommand("worker", [], bundle).args.includes("file:///tmp/dl/remcp.js"));
  const unwritten = launch("file:///tmp/dl/remcp.js", { sandboxBundle: () => undefined });
  assert.ok(selfCommand("sandbox", [], unwritten).args.includes("file:///tmp/dl/remcp.js"));
});
