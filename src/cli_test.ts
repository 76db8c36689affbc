import assert from "node:assert/strict";
import { parseCommandLine } from "./cli.ts";

Deno.test("parseCommandLine() refuses an unknown mode and lists the modes", () => {
  for (const argv of [["server"], ["frobnicate"], ["--allow-write", "frobnicate"]]) {
    const cmd = parseCommandLine(argv, {});
    assert.equal(cmd.kind, "error", argv.join(" "));
    assert.match(
      cmd.kind === "error" ? cmd.text : "",
      /Unknown mode ".+": the modes are stdio, serve/,
    );
  }
});

Deno.test("parseCommandLine() runs the stdio server with no mode word", () => {
  const cmd = parseCommandLine(["--allow-write"], {});
  assert.equal(cmd.kind === "mode" ? cmd.mode : cmd.kind, "stdio");
  const named = parseCommandLine(["stdio"], {});
  assert.equal(named.kind === "mode" ? named.mode : named.kind, "stdio");
});
