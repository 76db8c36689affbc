/**
 * What a lane's answer costs to write (the worker) and to read (the sandbox), per invoke, for a
 * real result (get_database_info of the test fixture, ~1.8 KB): the value text sent as a JSON
 * string (`value_json`, the form of session 20, kept here as the reference) against spliced in
 * unescaped (`value`, src/protocol/invoke_answer.ts). Both run in this one process, interleaved
 * round by round; prints the median µs per answer and the ratio.
 *
 *   deno run -A bench/lane_answer.ts [rounds, default 15]
 */
import { laneAnswerLine, readLaneAnswer } from "../src/protocol/invoke_answer.ts";
import { cappedResult } from "../src/protocol/results.ts";
import { fixture, ok, startRemcp } from "../tests/_harness.ts";

const ROUNDS = Number(Deno.args[0] ?? 15);
const PER_ROUND = 20_000;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const h = await startRemcp({ env: { REMCP_LOG_LEVEL: "error" } });
let value: Record<string, unknown>;
try {
  await ok(h.client, "open_database", { path: fixture("elf_x86_64_gcc_O2") });
  await ok(h.client, "wait_for_analysis", {});
  value = await ok(h.client, "get_database_info", {});
} finally {
  await h.close();
}

/** The reference: session 20's answer, the text as a JSON string, and its reading. */
function escapedLine(id: number, text: string): string {
  return `{"jsonrpc":"2.0","id":${id},"result":{"value_json":${JSON.stringify(text)}}}`;
}
const HEAD = /^\{"jsonrpc":"2\.0","id":(\d+),"result":/;
function readEscaped(line: string): string {
  const head = HEAD.exec(line)!;
  const json = line.slice(head[0].length, -1);
  return JSON.parse(json.slice('{"value_json":'.length, -1)) as string;
}

const ways: [string, () => number][] = [
  ["value_json (escaped)", () => {
    let n = 0;
    for (let i = 0; i < PER_ROUND; i++) {
      const result = cappedResult(value, 1 << 20);
      n += readEscaped(escapedLine(i, result.content[0]!.text)).length;
    }
    return n;
  }],
  ["value (raw)", () => {
    let n = 0;
    for (let i = 0; i < PER_ROUND; i++) {
      const answer = readLaneAnswer(laneAnswerLine(i, cappedResult(value, 1 << 20)));
      n += answer && "valueJson" in answer ? answer.valueJson.length : 0;
    }
    return n;
  }],
];
const times = new Map<string, number[]>();
let sink = 0;
for (let round = -1; round < ROUNDS; round++) {
  for (const [name, f] of ways) {
    const t0 = performance.now();
    sink += f();
    const us = (performance.now() - t0) * 1000 / PER_ROUND;
    if (round >= 0) times.set(name, [...times.get(name) ?? [], us]);
  }
}
const text = JSON.stringify(value);
console.log(
  `a lane answer of ${text.length} bytes, serialized and read (median µs, ${ROUNDS} rounds)`,
);
const ref = median(times.get(ways[0]![0])!);
for (const [name] of ways) {
  const m = median(times.get(name)!);
  console.log(`  ${name.padEnd(22)} ${m.toFixed(2).padStart(7)}  ${(ref / m).toFixed(2)}×`);
}
if (sink === 0) console.log("(nothing read)");
