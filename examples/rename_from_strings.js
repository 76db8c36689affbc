// Name unnamed functions (sub_*) after a distinctive string they use. Dry run by default:
// set APPLY to true to rename (renames persist in remcp's store and show in later sessions).
const APPLY = false;
const fns = await invoke("list_functions", { filter: "^sub_", limit: 2000 });
const proposals = [];
for (const f of fns.items) {
  const s = await invoke("function_summary", {
    address: f.start,
    max_items: 10,
    disassembly_lines: 0,
  });
  const text = s.strings.map((x) => x.text).find((t) => /[A-Za-z]{4,}/.test(t));
  if (!text) continue;
  const words = text.toLowerCase().match(/[a-z][a-z0-9]+/g)?.slice(0, 4) ?? [];
  if (words.length === 0) continue;
  const name = `fn_${words.join("_")}`.slice(0, 48);
  proposals.push({ address: f.start, old: f.name, name, because: text.slice(0, 60) });
}
const seen = new Set();
let renamed = 0;
for (const p of proposals) {
  while (seen.has(p.name)) p.name += "_";
  seen.add(p.name);
  if (APPLY) {
    try {
      await invoke("rename", { address: p.address, name: p.name });
      renamed++;
    } catch (e) {
      p.error = e.code;
    }
  }
}
({
  file,
  candidates: fns.total,
  proposals: proposals.length,
  renamed,
  sample: proposals.slice(0, 20),
});
