import assert from "node:assert/strict";
import { describeOutsideKill, oomKillCount } from "./oom_kills.ts";

Deno.test("describeOutsideKill() names an out-of-memory kill when the kernel's count rose", () => {
  assert.equal(
    describeOutsideKill(3, 4, 3 * 1024 * 1024 * 1024),
    "ran out of memory: the system's out-of-memory killer ended it (SIGKILL, 3072 MiB resident " +
      "when last seen)",
  );
  assert.match(describeOutsideKill(3, 3, undefined), /^was killed by SIGKILL from outside remcp/);
  assert.match(describeOutsideKill(undefined, undefined, 1), /from outside remcp/);
});

Deno.test("oomKillCount() reads the kernel's count on Linux", () => {
  const n = oomKillCount();
  if (Deno.build.os === "linux") assert.ok(typeof n === "number" && n >= 0, String(n));
  else assert.equal(n, undefined);
});
