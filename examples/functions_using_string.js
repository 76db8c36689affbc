// Functions whose code uses a string matching `pattern` (below: "error|fail|usage").
// remcp run examples/functions_using_string.js FILE…
// The sandbox has no environment or arguments: to search for something else, edit `pattern` in a
// copy of this file and run the copy.
const pattern = "error|fail|usage";
const hits = await invoke("find_code_by_string", { pattern, limit: 500 });
const byFunction = {};
for (const h of hits.items) {
  const key = h.function ?? "(no function)";
  (byFunction[key] ??= new Set()).add(h.text);
}
({
  file,
  pattern,
  total_uses: hits.total,
  functions: Object.entries(byFunction).map(([name, texts]) => ({
    name,
    strings: [...texts].slice(0, 5),
  })),
});
