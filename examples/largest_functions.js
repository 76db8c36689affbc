// The ten largest functions of each file, with what they call and the strings they use.
// remcp run examples/largest_functions.js /bin/ls
const { items } = await invoke("list_functions", { sort: "size", limit: 10 });
const rows = await Promise.all(
  items.map((f) =>
    invoke("function_summary", { address: f.start, max_items: 5, disassembly_lines: 0 })
  ),
);
rows.map((s) => ({
  name: s.name,
  start: s.start,
  size: s.size,
  blocks: s.blocks,
  complexity: s.cyclomatic_complexity,
  callees: s.callees.map((c) => c.name),
  strings: s.strings.map((x) => x.text),
}));
