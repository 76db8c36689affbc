// find_crypto_constants: a remcp script tool (see README, "Writing a tool").
//
// Looks for well-known cryptographic and checksum constants — tables in data (AES S-boxes,
// CRC-32 table, SHA-256 and MD5 round constants) through search_bytes, and magic numbers in code
// (CRC-32 polynomial, MD5/SHA-1/SHA-256 initial values, TEA delta, ChaCha "expand") through
// search_immediate — and reports the functions that use each one, through xrefs_to and
// get_function.

/** Tables, as their first 16 bytes in memory. Word tables are listed in both byte orders. */
const TABLES = [
  { algorithm: "AES", constant: "S-box", bytes: "637c777bf26b6fc53001672bfed7ab76" },
  { algorithm: "AES", constant: "inverse S-box", bytes: "52096ad53036a538bf40a39e81f3d7fb" },
  ...words("CRC-32", "table (poly 0xEDB88320)", [0x00000000, 0x77073096, 0xee0e612c, 0x990951ba]),
  // gzip and zlib's older builds keep the table as `unsigned long` entries: 8 bytes on LP64.
  ...words("CRC-32", "table of 64-bit entries (poly 0xEDB88320)", [0, 0x77073096], 8),
  ...words("SHA-256", "round constants K", [0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5]),
  ...words("SHA-256", "initial hash H", [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a]),
  ...words("MD5", "sine table T", [0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee]),
];

/** Magic numbers used as instruction operands. */
const IMMEDIATES = [
  { algorithm: "CRC-32", constant: "reflected polynomial", value: 0xedb88320 },
  { algorithm: "CRC-32", constant: "polynomial", value: 0x04c11db7 },
  { algorithm: "MD5/SHA-1", constant: "initial state A", value: 0x67452301 },
  { algorithm: "MD5/SHA-1", constant: "initial state B", value: 0xefcdab89 },
  { algorithm: "MD5", constant: "T[1]", value: 0xd76aa478 },
  { algorithm: "SHA-1", constant: "round constant K0", value: 0x5a827999 },
  { algorithm: "SHA-256", constant: "initial hash H0", value: 0x6a09e667 },
  { algorithm: "SHA-256", constant: "round constant K0", value: 0x428a2f98 },
  { algorithm: "TEA/XTEA", constant: "delta", value: 0x9e3779b9 },
  { algorithm: "ChaCha/Salsa20", constant: '"expa" of "expand 32-byte k"', value: 0x61707865 },
];

/** Both byte orders of `values` as words of `size` bytes (4, or 8 with the value zero-extended). */
function words(algorithm, constant, values, size = 4) {
  const hex = (v, le) => {
    const b = [...Array(size - 4).fill(0), v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255];
    return (le ? b.reverse() : b).map((x) => x.toString(16).padStart(2, "0")).join("");
  };
  return [
    {
      algorithm,
      constant: `${constant}, little-endian`,
      bytes: values.map((v) => hex(v, true)).join(""),
    },
    {
      algorithm,
      constant: `${constant}, big-endian`,
      bytes: values.map((v) => hex(v, false)).join(""),
    },
  ];
}

/** "637c77…" → "63 7c 77 …", the form search_bytes takes. */
function spaced(hex) {
  return hex.match(/../g).join(" ");
}

export default {
  name: "find_crypto_constants",
  description: "Find known crypto and checksum constants (AES S-boxes, CRC-32 table and " +
    "polynomial, SHA-256/SHA-1/MD5 constants, TEA delta, ChaCha) in data and code, with the " +
    "functions that use each.\n" +
    "Returns findings (algorithm, constant, kind, address, functions) and a per-function " +
    'summary. algorithms narrows the search (case-insensitive substrings, e.g. ["aes", "crc"]).',
  input: {
    type: "object",
    properties: {
      algorithms: {
        type: "array",
        items: { type: "string", minLength: 1, maxLength: 40 },
        maxItems: 20,
        description: "Only these algorithms (substring match); default all",
      },
      max_hits: {
        type: "integer",
        minimum: 1,
        maximum: 200,
        default: 20,
        description: "Most hits per constant",
      },
    },
  },
  output: {
    type: "object",
    properties: {
      findings: {
        type: "array",
        items: {
          type: "object",
          properties: {
            algorithm: { type: "string" },
            constant: { type: "string" },
            kind: { type: "string", enum: ["table", "immediate"] },
            address: { type: "string" },
            functions: { type: "array", items: { type: "string" } },
          },
          required: ["algorithm", "constant", "kind", "address", "functions"],
        },
      },
      functions: {
        type: "array",
        items: {
          type: "object",
          properties: {
            name: { type: "string" },
            start: { type: "string" },
            algorithms: { type: "array", items: { type: "string" } },
          },
        },
      },
      searched: { type: "integer" },
    },
    required: ["findings", "functions", "searched"],
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  scope: "database",
  timeout_s: 120,
  tags: ["crypto", "search", "example"],

  async run(args, ctx) {
    const wanted = (args.algorithms ?? []).map((a) => a.toLowerCase());
    const keep = (c) =>
      wanted.length === 0 || wanted.some((w) => c.algorithm.toLowerCase().includes(w));
    const tables = TABLES.filter(keep);
    const immediates = IMMEDIATES.filter(keep);
    const total = tables.length + immediates.length;
    const functions = new Map(); // start → {name, start, algorithms:Set}
    const findings = [];
    let done = 0;

    /** The function containing `address`, or null (data, or outside any function). */
    const containing = async (address) => {
      try {
        const f = await ctx.invoke("get_function", { address });
        return { name: f.name, start: f.start };
      } catch (e) {
        if (e.code === "NotFound" || e.code === "InvalidAddress") return null;
        throw e;
      }
    };
    const note = (fn, algorithm) => {
      if (!fn) return;
      const entry = functions.get(fn.start) ??
        { name: fn.name, start: fn.start, algorithms: new Set() };
      entry.algorithms.add(algorithm);
      functions.set(fn.start, entry);
    };

    for (const t of tables) {
      const hits = await ctx.invoke("search_bytes", {
        pattern: spaced(t.bytes),
        limit: args.max_hits,
      });
      for (const hit of hits.items) {
        const refs = await ctx.invoke("xrefs_to", { address: hit.address, limit: 50 });
        const users = [];
        for (const ref of refs.items) {
          const fn = await containing(ref.from);
          note(fn, t.algorithm);
          if (fn && !users.includes(fn.name)) users.push(fn.name);
        }
        findings.push({
          algorithm: t.algorithm,
          constant: t.constant,
          kind: "table",
          address: hit.address,
          functions: users,
        });
      }
      if (hits.has_more) {
        ctx.warn(
          "more_hits",
          `${t.algorithm} ${t.constant}: more than ${args.max_hits} hits; raise max_hits`,
        );
      }
      ctx.progress(++done, total, `${t.algorithm} ${t.constant}`);
    }

    for (const imm of immediates) {
      const hits = await ctx.invoke("search_immediate", { value: imm.value, limit: args.max_hits });
      for (const hit of hits.items) {
        const fn = await containing(hit.address);
        note(fn, imm.algorithm);
        findings.push({
          algorithm: imm.algorithm,
          constant: `${imm.constant} (0x${imm.value.toString(16)})`,
          kind: "immediate",
          address: hit.address,
          functions: fn ? [fn.name] : [],
        });
      }
      ctx.progress(++done, total, `${imm.algorithm} ${imm.constant}`);
    }

    if (findings.length === 0) {
      ctx.warn(
        "none_found",
        "No known constant was found; the code may compute its tables at run time",
      );
    }
    return {
      findings,
      functions: [...functions.values()].map((f) => ({ ...f, algorithms: [...f.algorithms] })),
      searched: total,
    };
  },
};
