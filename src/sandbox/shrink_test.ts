import assert from "node:assert/strict";
import { byteLength } from "../protocol/results.ts";
import { shrinkValue } from "./shrink.ts";

Deno.test("shrinkValue() keeps the shape and fits the cap", () => {
  const value = {
    table: Array.from({ length: 5000 }, (_, i) => ({ name: `f${i}`, size: i })),
    note: "x".repeat(50_000),
    count: 5000,
  };
  const notes: string[] = [];
  const out = shrinkValue(value, 16 * 1024, notes) as typeof value;
  assert.ok(byteLength(JSON.stringify(out)) <= 16 * 1024);
  assert.equal(out.count, 5000);
  assert.ok(Array.isArray(out.table) && out.table.length > 0);
  assert.equal(typeof out.note, "string");
  assert.ok(notes.length > 0);
});

Deno.test("shrinkValue() leaves small values alone", () => {
  const notes: string[] = [];
  assert.deepEqual(shrinkValue({ a: [1, 2] }, 1000, notes), { a: [1, 2] });
  assert.deepEqual(notes, []);
});

Deno.test("shrinkValue() cuts a 10 MB string to the cap and says so", () => {
  const notes: string[] = [];
  const out = shrinkValue({ text: "y".repeat(10 * 1024 * 1024) }, 128 * 1024, notes) as {
    text: string;
  };
  assert.ok(byteLength(JSON.stringify(out)) <= 128 * 1024);
  assert.ok(out.text.length > 100 * 1024, `kept ${out.text.length}`);
  assert.match(notes[0]!, /result\.text: string cut from 10485760/);
});
