import assert from "node:assert/strict";
import { RemcpError } from "../errors.ts";
import { compileFilter } from "./pattern.ts";

// Each of these takes exponential time on a backtracking engine; on RE2 all three are linear.
const HOSTILE = ["([\\w ]|[\\w ])+#", "(a|a)+$", "((a+))+$"];
const LONG = "a ".repeat(2_000) + "a".repeat(4_000) + "!";

Deno.test("compileFilter() matches patterns that backtrack exponentially in linear time", () => {
  for (const p of HOSTILE) {
    const re = compileFilter(p)!;
    assert.equal(re.test(LONG), false, p);
  }
  assert.equal(compileFilter("(a|a)+$")!.test("xxAAA"), true);
});

Deno.test("compileFilter() is case-insensitive and finds a match anywhere", () => {
  const re = compileFilter("^sub_[0-9a-f]+$")!;
  assert.equal(re.test("SUB_401000"), true);
  assert.equal(re.test("xsub_1"), false);
  assert.equal(compileFilter("main")!.test("__libc_start_main"), true);
  assert.equal(compileFilter(""), undefined);
  assert.equal(compileFilter(undefined), undefined);
});

Deno.test("compileFilter() refuses backreferences and lookaround with InvalidArgument", () => {
  for (
    const [p, word] of [["(a)\\1", "backreferences"], ["foo(?=bar)", "lookaround"], [
      "(?<!x)y",
      "lookaround",
    ]] as const
  ) {
    assert.throws(() => compileFilter(p, "pattern"), (err: unknown) => {
      assert.ok(err instanceof RemcpError);
      assert.equal(err.code, "InvalidArgument");
      assert.match(err.message, new RegExp(`^pattern uses ${word}`));
      assert.deepEqual(err.detail, { param: "pattern" });
      return true;
    });
  }
});

Deno.test("compileFilter() names the parameter of an invalid or overlong pattern", () => {
  assert.throws(() => compileFilter("(ab"), /filter is not a valid regular expression/);
  assert.throws(() => compileFilter("a".repeat(501), "pattern"), /pattern is longer than 500/);
});
