// remcp run --pair examples/diff_pair.js OLD NEW
// What changed between two versions: totals, then the most changed functions with their blocks.
const d = await invoke("diff_databases", { a, b, limit: 5 });
const changed = [];
for (const m of d.items) {
  const f = await invoke("diff_function", { a, a_function: m.a_start, b, b_function: m.b_start });
  changed.push({
    a: `${m.a_name}@${m.a_start}`,
    b: `${m.b_name}@${m.b_start}`,
    similarity: m.similarity,
    blocks: f.totals,
  });
}
({ old: file_a, new: file_b, totals: d.totals, changed });
