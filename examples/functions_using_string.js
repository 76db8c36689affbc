// Functions whose code uses a string matching PATTERN (default "error|fail|usage").
// PATTERN='passw' remcp run examples/functions_using_string.js FILE…
// (the sandbox has no environment: edit the pattern below, or use -e with your own copy)
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
