// Every import of each file: one NDJSON line per file with --ndjson.
// remcp run examples/imports.js --ndjson /usr/bin/*
const out = [];
for (let offset = 0;;) {
  const page = await invoke("list_imports", { offset, limit: 1000 });
  out.push(...page.items.map((i) => (i.library ? `${i.library}!${i.name}` : i.name)));
  if (!page.has_more) break;
  offset = page.next_offset;
}
({
  file,
  format: (await invoke("get_database_info", {})).format,
  imports: [...new Set(out)].sort(),
});
