/**
 * Binary diffing accuracy and speed: pairs of stripped binaries built here from real sources,
 * scored against the symbols of their unstripped builds.
 *
 *   (1) two versions of a program: Lua 5.4.4 as released vs Debian's security-patched 5.4.4
 *       (a patch diff), and three major releases, Lua 5.1.5 → 5.2.4 → 5.3.6 → 5.4.4 (Debian
 *       bookworm's lua5.1 … lua5.4 source packages), from `apt-get source`;
 *       SQLite 3.40.1 as released vs Debian's security-patched 3.40.1-2+deb12u2 (the only SQLite
 *       source here: two upstream releases are not available);
 *       and seven libraries in two releases each, one a copy CMake 3.25.1 vendors (Debian's cmake
 *       source, Utilities/cm*) and the other Debian bookworm's own package: zlib 1.2.12 → 1.2.13,
 *       zstd 1.5.0 → 1.5.4, liblzma (xz) 5.2.5 → 5.4.1, Expat 2.4.6 → 2.5.0 (Debian's, with its
 *       CVE patches, and as released), nghttp2 1.40.0 → 1.52.0, libarchive 3.6.0 → 3.6.2 and
 *       libcurl 7.86.0 → 7.88.1 (the last three added later than the others, with no matcher work
 *       on them: held out). Each library is compiled into a small driver of ours
 *       (bench/diff_pairs/, the same file for both releases) as sources, not an archive, so all
 *       its functions stay; where a configure step would write a configuration header, ours in
 *       bench/diff_pairs/ stands in, the same for both releases. libarchive links what Debian's
 *       build does (nettle, zlib, bzip2, lz4, liblzma, zstd, libxml2: their -dev packages must be
 *       installed) but ACLs and xattrs. SQLite 3.15.2 as SQLCipher 3.4.1 forked it (its codec on)
 *       → 3.40.1: six years of SQLite releases under a fork's additions. Three more held-out
 *       pairs from other Debian bookworm sources, built the same way (a driver and a
 *       configuration header of ours, the same for both releases): PCRE2 10.40 as PHP 8.2.32
 *       vendors it (ext/pcre/pcre2lib) → Debian's pcre2 10.42 (8-bit, with the JIT); libfuse
 *       2.9.9 → 3.14.0 (Debian's fuse and fuse3: one library across a major release that
 *       reworked its API); c-ares 1.18.1 (Debian's) → 1.28.1 as Node.js 18.20.4 vendors it
 *       (deps/cares: ten releases that rebuilt it on a DNS record API, threads and an event loop);
 *       and one more, added in session 23 before any matcher work on it: hiredis 0.14.1
 *       (Debian's) → 1.0.3 as Redis 7.0.15 vendors it (deps/hiredis: a major release that added
 *       RESP3, pluggable allocators and connection options, and renamed its sds strings hi_sds*);
 *       and two more added in session 24, scored before any matcher work on them: LMDB 0.9.24
 *       (Debian's lmdb) → 0.9.29 as OpenLDAP 2.5.13 vendors it (libraries/liblmdb: five
 *       bug-fix releases) and ngtcp2 0.12.1 (Debian's) → 1.3.0 as Node.js 18.20.4 vendors it
 *       (deps/ngtcp2/ngtcp2: the QUIC library across its 1.0 API clean-up, BBRv1 dropped);
 *   (2) the same source at -O2 and -O3; (3) gcc against clang (Lua 5.4.4 and SQLite 3.40.1).
 *
 * A matched pair is correct when both functions carry the same symbol (compiler suffixes such
 * as .isra.0 ignored; across releases, the functions the newer one renamed count by their new
 * name: LUA52_RENAMES, LUA53_RENAMES, LUA54_RENAMES, SQLITE340_RENAMES, lzma54Name, zstd154Name,
 * nghttp2152Name, fuse314Name, cares128Name, hiredis103Name, CURL788_RENAMES, lmdb0929Name,
 * ngtcp2130Name, and CMake's zlib
 * by zlib's names, unmangleCmZlib);
 * precision is over matched pairs whose two sides both have a symbol,
 * recall over the functions whose name is unique in both builds and that both analyses found.
 * Wrong pairs are counted by the round that made them, and apart those whose a name is missing
 * from b and b name from a ("one-sided": often a rename or split no table above lists yet).
 * Time: diff_databases alone (features + matching), beside the open + analysis of the same two
 * files as the reference. Speed on two large stripped binaries of one source (no symbols, so no
 * accuracy): QEMU's aarch64 user-mode emulator for little- and big-endian guests (4.7 MB each)
 * and Debian's GNU gold linkers for arm and aarch64 (6 MB each), with the CPU seconds the server
 * and its workers spent (the machine is shared; wall time follows its load). Where Rizin is on
 * PATH, `rz-diff -t functions` is scored the same way beside each pair (bench/_rizin.ts), stopped
 * and reported "not finished" once it has used 40 CPU-minutes on one pair
 * (REMCP_BENCH_RZDIFF_CPU_MIN=N for another limit).
 *
 *   deno run -A bench/diff.ts            (work folder: $REMCP_BENCH_DIR or a temporary one)
 *   REMCP_BENCH_ONLY=lua deno run -A bench/diff.ts      (only the pairs whose name has "lua";
 *                                         "vendored" selects the seven library pairs, "zlib",
 *                                         "zstd", "liblzma", "expat", "nghttp2", "libarchive",
 *                                         "curl" one each, "SQLCipher" the fork, "pcre2",
 *                                         "libfuse", "c-ares", "hiredis" four held-out pairs,
 *                                         "lmdb", "ngtcp2" the two of session 24)
 *   REMCP_BENCH_MISSES=1 …               (also list every wrong pair and every missed true pair)
 *   REMCP_BENCH_DUMP=DIR …               (also write each pair's features, symbols and found
 *                                         starts to DIR/NAME.json: bench/diff_offline.ts reruns
 *                                         the matcher on them and scores it the same way)
 *
 * Every build's exact compile command is kept beside it: $REMCP_BENCH_DIR/bin/NAME.cmd.
 *
 * Each pair is scored as diff_databases matches by default and again with `matching: "broad"`.
 * For the Lua releases, zstd, curl, libfuse and c-ares a further score counts a match of an old
 * function with the new function its body moved to, where the new release split it into a thin
 * wrapper (or a macro) under the old name and a new function holding the code, or dropped the old
 * function and gave its body to a wrapper that called it (curl, libfuse) or to a function it
 * called (libfuse) (LUA5x_SPLITS, ZSTD154_SPLITS, CURL788_SPLITS, FUSE314_SPLITS,
 * CARES128_SPLITS, each checked in both sources); the strict score, printed first, is the goal's.
 *
 * The speed pairs also time a second diff of the same two files by a second server on the same
 * state folder: new workers, analyses and diffing features read from the databases' stores.
 */
import type { Client } from "@modelcontextprotocol/client";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { type Gathered, gatherFeatures } from "../src/diff/gather.ts";
import { matchFunctions } from "../src/diff/match.ts";
import { type Harness, startRemcp } from "../tests/_harness.ts";
import { printRzDiffBeside, rizinForBench, RZ_DIFF_CPU_LIMIT_SECONDS } from "./_rizin.ts";
import { scoreMatches } from "./_match_score.ts";
import { writeDump } from "./_diff_dump.ts";

const WORK = Deno.env.get("REMCP_BENCH_DIR") ?? await Deno.makeTempDir({ prefix: "remcp-diff-" });

async function sh(cmd: string, cwd = WORK): Promise<boolean> {
  const out = await new Deno.Command("bash", {
    args: ["-c", cmd],
    cwd,
    stdout: "null",
    stderr: "piped",
  })
    .output();
  if (!out.success) {
    console.error(`  failed: ${cmd}\n  ${new TextDecoder().decode(out.stderr).slice(-400)}`);
  }
  return out.success;
}

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

/** Unpacks the Lua and SQLite sources; returns the folders that are there afterwards. */
async function sources(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  if (!(await exists(join(WORK, "lua5.4-5.4.4")))) {
    await sh("apt-get source -qq lua5.3 lua5.4 sqlite3 2>&1");
  }
  for (const [v, dir] of [["5.1", "lua5.1-5.1.5"], ["5.2", "lua5.2-5.2.4"]] as const) {
    if (!(await exists(join(WORK, dir)))) await sh(`apt-get source -qq lua${v} 2>&1`);
  }
  if (
    !(await exists(join(WORK, "lua-5.4.4"))) &&
    (await exists(join(WORK, "lua5.4_5.4.4.orig.tar.gz")))
  ) {
    await sh("tar xzf lua5.4_5.4.4.orig.tar.gz");
  }
  await Deno.mkdir(join(WORK, "inc"), { recursive: true });
  for (const v of ["5.1", "5.2", "5.3", "5.4"]) {
    await Deno.writeTextFile(
      join(WORK, "inc", `lua${v}-deb-multiarch.h`),
      '#define DEB_HOST_MULTIARCH "x86_64-linux-gnu"\n',
    );
  }
  // SQLite as released (Debian's orig tarball, unpatched) beside `apt-get source`'s tree.
  if (
    !(await exists(join(WORK, "sqlite3-3.40.1-orig"))) &&
    (await exists(join(WORK, "sqlite3_3.40.1.orig.tar.xz")))
  ) {
    await sh(
      "mkdir -p orig && tar xJf sqlite3_3.40.1.orig.tar.xz -C orig && " +
        "mv orig/sqlite3-3.40.1 sqlite3-3.40.1-orig && rmdir orig",
    );
  }
  const want = {
    lua515: "lua5.1-5.1.5",
    lua524: "lua5.2-5.2.4",
    lua536: "lua5.3-5.3.6",
    lua544: "lua-5.4.4",
    lua544deb: "lua5.4-5.4.4",
    sqlite: "sqlite3-3.40.1-orig",
    sqlitedeb: "sqlite3-3.40.1",
  };
  for (const [k, dir] of Object.entries(want)) {
    if (await exists(join(WORK, dir))) out[k] = join(WORK, dir);
  }
  for (const k of ["sqlite", "sqlitedeb"]) {
    const dir = out[k];
    if (!dir || (await exists(join(dir, "sqlite3.c")))) continue;
    // The amalgamation is generated (needs tclsh).
    if (!(await sh("./configure -q >/dev/null && make -s sqlite3.c shell.c", dir))) delete out[k];
  }
  return out;
}

/** The drivers and configuration headers of the library pairs (ours, beside this file). */
const DRIVERS = fileURLToPath(new URL("./diff_pairs", import.meta.url));

/**
 * The Debian versions the numbers in docs/MEASUREMENTS.md were taken on, asked for when the
 * newest `apt-get source` offers cannot be fetched (a security update whose files the mirror
 * lacks answered 404 for zlib, libzstd and expat).
 */
const DEB_VERSIONS: Record<string, string> = {
  zlib: "1:1.2.13.dfsg-1",
  libzstd: "1.5.4+dfsg2-5",
  expat: "2.5.0-1+deb12u2",
  curl: "7.88.1-10+deb12u15",
  libarchive: "3.6.2-1+deb12u4",
  nghttp2: "1.52.0-1+deb12u3",
  "xz-utils": "5.4.1-1+deb12u1",
  sqlcipher: "3.4.1-2",
};

const unpacked = new Map<string, Promise<string | undefined>>();
/**
 * `apt-get source PKG` into the work folder once (unpacked, Debian's patches applied) unless
 * `dir` is already there, else the version of {@link DEB_VERSIONS} or any other; resolves to `dir`'s path, or
 * undefined when it could not be had.
 */
function debSource(pkg: string, dir: string): Promise<string | undefined> {
  let p = unpacked.get(pkg);
  if (!p) {
    p = (async () => {
      if (!(await exists(join(WORK, dir)))) await sh(`apt-get source -qq ${pkg} 2>&1`);
      // A mirror may list a security update whose files it does not hold: the version the
      // recorded numbers were taken on, then every other version apt knows, newest first.
      const pinned = DEB_VERSIONS[pkg];
      for (const v of [...(pinned ? [pinned] : []), ...(await sourceVersions(pkg))]) {
        if (await exists(join(WORK, dir))) break;
        await sh(`apt-get source -qq ${pkg}=${v} 2>&1`);
      }
      return (await exists(join(WORK, dir))) ? join(WORK, dir) : undefined;
    })();
    unpacked.set(pkg, p);
  }
  return p;
}

/** The versions of source package `pkg` apt knows (`apt-cache showsrc`), newest first. */
async function sourceVersions(pkg: string): Promise<string[]> {
  const out = await new Deno.Command("bash", {
    args: [
      "-c",
      `apt-cache showsrc ${pkg} | sed -n 's/^Version: //p' | sort -u | sort -rV`,
    ],
    stdout: "piped",
    stderr: "null",
  }).output();
  return new TextDecoder().decode(out.stdout).split("\n").filter((v) => v !== "");
}

/** Builds `name` unstripped and a stripped copy; returns the unstripped path. */
async function build(
  name: string,
  compiler: string,
  opt: string,
  srcs: string,
): Promise<string | undefined> {
  const bin = join(WORK, "bin", name);
  if (await exists(`${bin}.stripped`)) return bin;
  await Deno.mkdir(join(WORK, "bin"), { recursive: true });
  const cmd = `${compiler} ${opt} -w -o ${bin} ${srcs} -lm -ldl -lpthread`;
  // The exact command beside the binaries, its file lists expanded as bash runs it.
  const expanded = await new Deno.Command("bash", {
    args: ["-c", `echo ${cmd}`],
    cwd: WORK,
    stdout: "piped",
    stderr: "null",
  }).output();
  await Deno.writeFile(`${bin}.cmd`, expanded.stdout);
  const ok = await sh(`${cmd} && strip -o ${bin}.stripped ${bin}`);
  return ok ? bin : undefined;
}

// Debian's luaconf.h includes a header its build generates; the multiarch triplet is all it holds.
const luaSources = (dir: string) =>
  `-I${WORK}/inc -DLUA_USE_POSIX -DLUA_USE_DLOPEN $(ls ${dir}/src/*.c | grep -v -e luac.c -e onelua.c -e print.c | tr '\\n' ' ')`;
const sqliteSources = (dir: string) =>
  `-DSQLITE_THREADSAFE=0 ${dir}/sqlite3.c ${dir}/shell.c -I${dir}`;

/**
 * The libraries, each compiled into its driver (bench/diff_pairs/NAME.c) from a source folder:
 * every .c file of the library that the release's own build compiles by default, the same
 * selection rule for both releases. `dir` is zlib's top folder, zstd's lib/, liblzma's src/
 * (holding liblzma/ and common/), Expat's lib/, nghttp2's lib/, libarchive's libarchive/,
 * curl's top folder, PCRE2's source folder (PHP's pcre2lib/, Debian's src/), libfuse's and
 * c-ares' top folders.
 */
const LIBRARY_SOURCES: Record<string, (dir: string) => string> = {
  zlib: (dir) => `-I${dir} ${DRIVERS}/zlib.c $(ls ${dir}/*.c | tr '\n' ' ')`,
  // 1.5.4's Huffman decoder has an x86-64 assembly loop that 1.5.0 lacks: its C loop is kept.
  zstd: (dir) =>
    `-DZSTD_LEGACY_SUPPORT=0 -DZSTD_DISABLE_ASM -DZSTD_MULTITHREAD -I${dir} ${DRIVERS}/zstd.c ` +
    `$(ls ${dir}/{common,compress,decompress,dictBuilder,deprecated}/*.c | tr '\n' ' ')`,
  // Table generators and the size-optimised CRCs are not part of the default library; CMake's
  // copy leaves out hardware_physmem.c (and the tuklib_physmem.c it needs), so both do.
  liblzma: (dir) =>
    `-DHAVE_CONFIG_H -I${DRIVERS}/lzma ` +
    ["api", "common", "check", "lz", "rangecoder", "lzma", "delta", "simple"]
      .map((sub) => `-I${dir}/liblzma/${sub}`).join(" ") +
    ` -I${dir}/common ${DRIVERS}/lzma.c $(find ${dir}/liblzma -name '*.c' | ` +
    `grep -v -e _tablegen -e _small -e hardware_physmem | sort | tr '\n' ' ') ` +
    `${dir}/common/tuklib_cpucores.c`,
  expat: (dir) =>
    `-I${DRIVERS}/expat -I${dir} ${DRIVERS}/expat.c ${dir}/xmlparse.c ${dir}/xmlrole.c ${dir}/xmltok.c`,
  nghttp2: (dir) =>
    `-DHAVE_CONFIG_H -DNGHTTP2_STATICLIB -I${DRIVERS}/nghttp2 -I${dir}/includes ` +
    `${DRIVERS}/nghttp2.c $(ls ${dir}/*.c | tr '\n' ' ')`,
  // The platform files of other systems, and the Linux ACL code (ACLs are off in config.h, as
  // there are no libacl headers here); the libraries Debian's build links, but ACL and xattr.
  libarchive: (dir) =>
    `-DHAVE_CONFIG_H -I${DRIVERS}/libarchive -I/usr/include/libxml2 -I${dir} ` +
    `${DRIVERS}/libarchive.c $(ls ${dir}/*.c | ` +
    `grep -v -e _windows -e _darwin -e _freebsd -e _sunos -e _linux | tr '\n' ' ') ` +
    "-lnettle -llzma -lzstd -llz4 -lbz2 -lz -lxml2",
  curl: (dir) =>
    `-DHAVE_CONFIG_H -DBUILDING_LIBCURL -DCURL_STATICLIB -I${DRIVERS}/curl -I${dir}/include ` +
    `-I${dir}/lib ${DRIVERS}/curl.c ` +
    `$(ls ${dir}/lib/*.c ${dir}/lib/{vauth,vtls,vquic,vssh}/*.c | tr '\n' ' ')`,
  // libpcre2-8's sources as its Makefile.am lists them (PHP's copy compiles the same list); our
  // configuration is forced in, as PHP's config.h beside its copy includes PHP's own headers.
  pcre2: (dir) =>
    `-DPCRE2_CODE_UNIT_WIDTH=8 -DPCRE2_STATIC -include ${DRIVERS}/pcre2/config.h -I${dir} ` +
    `${DRIVERS}/pcre2.c ` +
    ["auto_possess", "chartables", "compile", "config", "context", "convert", "dfa_match"]
      .concat(["error", "extuni", "find_bracket", "jit_compile", "maketables", "match"])
      .concat(["match_data", "newline", "ord2utf", "pattern_info", "script_run", "serialize"])
      .concat(["string_utils", "study", "substitute", "substring", "tables", "ucd", "valid_utf"])
      .concat(["xclass"]).map((f) => `${dir}/pcre2_${f}.c`).join(" "),
  // Every .c file of src/lib/ (each release's Makefile.inc lists them all).
  cares: (dir) =>
    `-DHAVE_CONFIG_H -DCARES_BUILDING_LIBRARY -DCARES_STATICLIB -I${DRIVERS}/cares ` +
    `-I${dir}/include -I${dir}/src/lib ${DRIVERS}/cares.c $(ls ${dir}/src/lib/*.c | tr '\n' ' ')`,
  // The library's Makefile objects (dict.c is included by async.c; ssl.c is a second library).
  hiredis: (dir) =>
    `-I${dir} ${DRIVERS}/hiredis.c $(ls ${dir}/*.c | grep -v -e test.c -e dict.c -e ssl.c | ` +
    "tr '\\n' ' ')",
  // The library's two files (its Makefile's liblmdb.a), without the tools and tests beside them.
  lmdb: (dir) => `-pthread -I${dir} ${DRIVERS}/lmdb.c ${dir}/mdb.c ${dir}/midl.c`,
  // Every .c file of lib/ (the QUIC library; the crypto backends are a separate library).
  ngtcp2: (dir) =>
    `-DHAVE_CONFIG_H -DNGTCP2_STATICLIB -I${DRIVERS}/ngtcp2 -I${dir}/includes -I${dir} ` +
    `${DRIVERS}/ngtcp2.c $(ls ${dir}/*.c | tr '\n' ' ')`,
  // lib/ and lib/modules/ but the BSD mount code and fuse 2's separate libulockmgr; the API
  // version (FUSE_USE_VERSION) and the version each release's build sets are added by fuse().
  fuse: (dir) =>
    `-D_REENTRANT -D_FILE_OFFSET_BITS=64 -DHAVE_CONFIG_H -DHAVE_LIBFUSE_PRIVATE_CONFIG_H ` +
    `-I${DRIVERS}/fuse -I${dir}/include -I${dir}/lib ` +
    `${DRIVERS}/fuse.c $(ls ${dir}/lib/*.c ${dir}/lib/modules/*.c | ` +
    `grep -v -e mount_bsd -e ulockmgr | tr '\n' ' ')`,
};

/**
 * CMake's zlib renames every exported symbol (cm_zlib_mangle.h; crc32 twice, via zlib's own
 * z_crc32): compared by zlib's names.
 */
const unmangleCmZlib = (n: string) => n.replace(/^cm_zlib_/, "").replace(/^z_crc32$/, "crc32");

/**
 * liblzma 5.4 exported two 5.2 statics under lzma_ names (for its new file-info decoder and
 * lzma_raw_* checks): same bodies, same role.
 */
const lzma54Name = (n: string) =>
  n === "validate_chain" || n === "index_decoder_init" ? `lzma_${n}` : n;

/**
 * zstd 1.5.4 builds its copy of xxHash under the ZSTD_ namespace (lib/common/xxhash.h sets
 * XXH_NAMESPACE), and renamed 1.5.0's exported HUF_getNbBits (symbol table, symbol) to
 * HUF_getNbBitsFromCTable, reusing the old name for a static helper on one table entry.
 */
const zstd154Name = (n: string) =>
  /^XXH(?:32|64)(?:_(?:canonicalFromHash|copyState|createState|digest|freeState|hashFromCanonical|reset|update))?$|^XXH_versionNumber$/
      .test(n)
    ? `ZSTD_${n}`
    : n === "HUF_getNbBits"
    ? "HUF_getNbBitsFromCTable"
    : n;
/**
 * nghttp2 1.52.0 exported two statics of 1.40.0's nghttp2_session.c under the library's prefix
 * (declared in nghttp2_session.h, called from nghttp2_submit.c too): same bodies, same role.
 */
const nghttp2152Name = (n: string) =>
  n === "session_update_recv_connection_window_size" ||
    n === "session_update_recv_stream_window_size"
    ? `nghttp2_${n}`
    : n;

/**
 * libfuse 3.14 built without versioned symbols (as here: they only mean something in the shared
 * library) makes fuse_new, fuse_loop_mt and fuse_session_loop_mt macros over the functions the
 * shared library exports under those names as their default versions (fuse_new_31 for
 * fuse_new@@FUSE_3.1, fuse_loop_mt_312, fuse_session_loop_mt_312): 2.9.9's functions count by
 * those names. 2.9.9's static fuse_ll_process_buf, the low-level session's request dispatcher,
 * is 3.14's fuse_session_process_buf_int (the same body on the session in place of an opaque
 * pointer), and helper.c's fuse_mount_common, behind fuse_mount, is fuse_session_mount (behind
 * 3.14's fuse_mount: the same descriptor 0–2 guard, mount and unmount on failure).
 */
const FUSE314_RENAMES = new Map([
  ["fuse_new", "fuse_new_31"],
  ["fuse_loop_mt", "fuse_loop_mt_312"],
  ["fuse_session_loop_mt", "fuse_session_loop_mt_312"],
  ["fuse_ll_process_buf", "fuse_session_process_buf_int"],
  ["fuse_mount_common", "fuse_session_mount"],
]);
const fuse314Name = (n: string) => FUSE314_RENAMES.get(n) ?? n;

/**
 * Where libfuse 3.14 moved a 2.9.9 body (see LUA54_SPLITS): 2.9.9's fuse_new is a wrapper
 * around fuse_new_common(…, 0), whose body 3.14 has under fuse_new's name (fuse_new_31, above);
 * fuse_parse_cmdline's body is 3.14's fuse_parse_cmdline_312, the old name an ABI wrapper
 * (compat.c, through fuse_parse_cmdline_30); fuse_lib_readdir became a wrapper around
 * fuse_readdir_common (shared with readdirplus); fuse_lowlevel_new_common's body (checks,
 * allocation, option parsing, the pipe key) went into fuse_session_new, which it called.
 */
const FUSE314_SPLITS = new Map([
  ["fuse_new_common", "fuse_new_31"],
  ["fuse_parse_cmdline", "fuse_parse_cmdline_312"],
  ["fuse_lib_readdir", "fuse_readdir_common"],
  ["fuse_lowlevel_new_common", "fuse_session_new"],
]);

/**
 * c-ares 1.28.1 renamed 1.18.1 internals to its ares__ prefix: ares_strsplit_free (the same
 * body), ares_strsplit (the same role, now over ares__buf, without the make_set argument), and
 * ares_process.c's socket_recv and socket_recvfrom, moved to ares__socket.c; init's set_search
 * is ares_sysconfig_files.c's config_search (the same steps on the system configuration).
 */
const CARES128_RENAMES = new Map([
  ["ares_strsplit_free", "ares__strsplit_free"],
  ["ares_strsplit", "ares__strsplit"],
  ["socket_recv", "ares__socket_recv"],
  ["socket_recvfrom", "ares__socket_recvfrom"],
  ["set_search", "config_search"],
]);
const cares128Name = (n: string) => CARES128_RENAMES.get(n) ?? n;

/**
 * hiredis 1.0 renamed its copy of sds (the string library it shares with Redis) to hi_sds*, so
 * that both link into one program: the same functions under the new prefix.
 */
const hiredis103Name = (n: string) => /^sds/.test(n) ? `hi_${n}` : n;

/**
 * LMDB 0.9.24 compiles its environment teardown as mdb_env_close1 (a macro drops the unused
 * `excl` argument where mutexes are POSIX); 0.9.29 keeps the argument where robust mutexes exist,
 * as on Linux, so the same function keeps its declared name, mdb_env_close0.
 */
const lmdb0929Name = (n: string) => n === "mdb_env_close1" ? "mdb_env_close0" : n;

/**
 * Functions ngtcp2 1.x renamed from 0.12.1 (its 1.0 API clean-up), each checked in both trees:
 * the old name gone from 1.3.0, the new one absent from 0.12.1. The close-error helpers became
 * ngtcp2_ccerr_*, "early" became "0rtt" or "tls_…", the transport-parameter codecs and two
 * predicates took new word orders, a static of ngtcp2_conn.c and one of the version negotiation
 * were exported or renamed, and 1.3.0's ngtcp2_bbr.c is 0.12.1's ngtcp2_bbr2.c (BBRv2) under
 * BBR's names, 0.12.1's BBRv1 dropped. Successors in the same role count as well: the decoder of
 * the peer's transport parameters now also sets them, the 0-RTT setter takes the parameters
 * without a version, and the statistics getter returns ngtcp2_conn_info. The congestion
 * controllers' init functions are left out: 0.12.1 had an allocating one and a plain one for
 * each, 1.3.0 one, and which one it continues is not one-to-one.
 */
const NGTCP2_130_RENAMES = new Map([
  ["conn_create_ack_frame", "ngtcp2_conn_create_ack_frame"],
  ["ngtcp2_conn_handshake_completed", "ngtcp2_conn_tls_handshake_completed"],
  ["ngtcp2_conn_install_early_key", "ngtcp2_conn_install_0rtt_key"],
  [
    "ngtcp2_conn_decode_remote_transport_params",
    "ngtcp2_conn_decode_and_set_remote_transport_params",
  ],
  [
    "ngtcp2_conn_set_early_remote_transport_params_versioned",
    "ngtcp2_conn_set_0rtt_remote_transport_params",
  ],
  ["ngtcp2_connection_close_error_default", "ngtcp2_ccerr_default"],
  ["ngtcp2_connection_close_error_set_transport_error", "ngtcp2_ccerr_set_transport_error"],
  ["ngtcp2_connection_close_error_set_transport_error_liberr", "ngtcp2_ccerr_set_liberr"],
  ["ngtcp2_connection_close_error_set_transport_error_tls_alert", "ngtcp2_ccerr_set_tls_alert"],
  ["ngtcp2_connection_close_error_set_application_error", "ngtcp2_ccerr_set_application_error"],
  ["ngtcp2_conn_is_in_closing_period", "ngtcp2_conn_in_closing_period"],
  ["ngtcp2_conn_is_in_draining_period", "ngtcp2_conn_in_draining_period"],
  ["ngtcp2_conn_early_data_rejected", "ngtcp2_conn_tls_early_data_rejected"],
  ["ngtcp2_conn_get_early_data_rejected", "ngtcp2_conn_get_tls_early_data_rejected"],
  ["ngtcp2_conn_get_conn_stat_versioned", "ngtcp2_conn_get_conn_info_versioned"],
  ["ngtcp2_conn_set_early_crypto_ctx", "ngtcp2_conn_set_0rtt_crypto_ctx"],
  ["ngtcp2_conn_get_early_crypto_ctx", "ngtcp2_conn_get_0rtt_crypto_ctx"],
  ["ngtcp2_conn_get_connection_close_error", "ngtcp2_conn_get_ccerr"],
  ["ngtcp2_encode_transport_params_versioned", "ngtcp2_transport_params_encode_versioned"],
  ["ngtcp2_decode_transport_params_versioned", "ngtcp2_transport_params_decode_versioned"],
  ["ngtcp2_decode_transport_params_new", "ngtcp2_transport_params_decode_new"],
  ["vneg_other_versions_includes", "vneg_available_versions_includes"],
]);
/** BBRv2's callbacks, bbr2_cc_*, are 1.3.0's bbr_cc_* (its other statics had bbr_ names already). */
const ngtcp2130Name = (n: string) => NGTCP2_130_RENAMES.get(n) ?? n.replace(/^bbr2_cc_/, "bbr_cc_");

/**
 * Where c-ares 1.28.1 moved a 1.18.1 body (see LUA54_SPLITS): its ares_send parses the query
 * into a DNS record and goes through ares_send_dnsrec to ares_send_dnsrec_int, which holds what
 * 1.18.1's ares_send did (the checks, the query's allocation and id, queueing and sending).
 */
const CARES128_SPLITS = new Map([["ares_send", "ares_send_dnsrec_int"]]);

/**
 * Where curl 7.88.1 moved a 7.86.0 body (see LUA54_SPLITS): 7.86's curl_strequal and
 * curl_strnequal are wrappers around Curl_strcasecompare and Curl_strncasecompare; 7.88 dropped
 * the Curl_ functions and gave the public ones the bodies, curl_strequal that of 7.86's
 * Curl_safe_strcasecompare (the same null checks around the same loop, byte for byte once its
 * static helper is inlined), curl_strnequal Curl_strncasecompare's loop under new null checks.
 */
const CURL788_SPLITS = new Map([
  ["Curl_safe_strcasecompare", "curl_strequal"],
  ["Curl_strncasecompare", "curl_strnequal"],
]);

/**
 * Functions curl 7.88.1 renamed from 7.86.0 when 7.87 rewrote connecting into connection filters,
 * each checked in both trees (the old name gone from 7.88.1, the new one absent from 7.86.0):
 * the same body under the filter's name, reading the socket from the filter's context instead of
 * a parameter (connect.c's Curl_conninfo_remote/_local → cf-socket.c's conn_set_primary_ip and
 * set_local_ip, sendf.c's Curl_send_plain/Curl_recv_plain → cf-socket.c's cf_socket_send/_recv,
 * socks.c's state machines Curl_SOCKS4/5 → do_SOCKS4/5), or its successor in the same role:
 * http_proxy.c's Curl_proxyCONNECT (set the tunnel state up if missing, run CONNECT, free the
 * state once done) → http_proxy_cf_connect, which does the same once the filters below it are
 * connected. Curl_is_connected is left out: its loop went to connect.c's is_connected and its
 * role to cf_he_connect, a split.
 */
const CURL788_RENAMES = new Map([
  ["Curl_conninfo_remote", "conn_set_primary_ip"],
  ["Curl_conninfo_local", "set_local_ip"],
  ["Curl_send_plain", "cf_socket_send"],
  ["Curl_recv_plain", "cf_socket_recv"],
  ["Curl_SOCKS4", "do_SOCKS4"],
  ["Curl_SOCKS5", "do_SOCKS5"],
  ["Curl_proxyCONNECT", "http_proxy_cf_connect"],
]);
const curl788Name = (n: string) => CURL788_RENAMES.get(n) ?? n;

/**
 * Where 1.5.4 moved a 1.5.0 body (see LUA54_SPLITS): 1.5.0's HUF_readDTableX1_wksp is a wrapper
 * calling HUF_readDTableX1_wksp_bmi2(…, 0); 1.5.4 dropped the _bmi2 function and put its body,
 * with a flags argument, under the wrapper's name.
 */
const ZSTD154_SPLITS = new Map([["HUF_readDTableX1_wksp_bmi2", "HUF_readDTableX1_wksp"]]);

/**
 * Functions SQLite renamed between 3.15.2 (SQLCipher 3.4.1's copy) and 3.40.1, each checked in
 * both amalgamations: the old name gone from 3.40.1, the new one absent from 3.15.2, the body the
 * old one's (statics made `sqlite3…` internals, the `sqlite3_str` API's printf functions, the
 * master → super journal wording), or its successor in the same role: `isAlterableTable` with
 * `isSystemTable`'s check and message, `apiHandleError` with `apiOomError`'s body behind a test,
 * `toLocaltime` with `localtimeOffset`'s conversion and error. Splits (3.40.1's `clearCell` macro
 * around `clearCellOverflow`, `sqlite3BtreeMovetoUnpacked` into table and index forms) are not
 * renames and stay out.
 */
const SQLITE340_RENAMES = new Map([
  ["readMasterJournal", "readSuperJournal"],
  ["handleDeferredMoveto", "sqlite3VdbeFinishMoveto"],
  ["freeIndex", "sqlite3FreeIndex"],
  ["handleMovedCursor", "sqlite3VdbeHandleMovedCursor"],
  ["sqlite3MatchSpanName", "sqlite3MatchEName"],
  ["keyInfoFromExprList", "sqlite3KeyInfoFromExprList"],
  ["sqlite3XPrintf", "sqlite3_str_appendf"],
  ["sqlite3VXPrintf", "sqlite3_str_vappendf"],
  ["setJoinExpr", "sqlite3SetJoinExpr"],
  ["generateColumnNames", "sqlite3GenerateColumnNames"],
  ["isSystemTable", "isAlterableTable"],
  ["apiOomError", "apiHandleError"],
  ["localtimeOffset", "toLocaltime"],
]);
const sqlite340Name = (n: string) => SQLITE340_RENAMES.get(n) ?? n;

/** Function symbols of an unstripped build: start → name (names unique in the file only). */
async function symbols(path: string): Promise<Map<number, string>> {
  const out = await new Deno.Command("nm", { args: ["--defined-only", path], stdout: "piped" })
    .output();
  const byName = new Map<string, number[]>();
  for (const line of new TextDecoder().decode(out.stdout).split("\n")) {
    const m = /^([0-9a-f]+) [tTwW] (\S+)$/.exec(line);
    if (!m) continue;
    const name = m[2]!.replace(/\.(?:isra|part|constprop|cold|lto_priv)\.\d+/g, "");
    if (/\.cold/.test(m[2]!)) continue;
    byName.set(name, [...(byName.get(name) ?? []), Number.parseInt(m[1]!, 16)]);
  }
  const starts = new Map<number, string>();
  for (const [name, at] of byName) if (at.length === 1) starts.set(at[0]!, name);
  return starts;
}

interface Scored {
  pair: string;
  /** Precision and recall with `matching: "broad"`. */
  broad: { precision: number; recall: number; f1: number };
  /** Precision and recall when a pair listed as a split counts as correct. */
  splitAware?: { precision: number; recall: number; f1: number; correct: number };
  /** Wrong pairs by the round that matched them. */
  wrong: Record<string, number>;
  /**
   * Wrong pairs whose a name is not in b and whose b name is not in a (names unique in their
   * build): a function renamed, split or replaced that the truth by names does not follow —
   * beside pairs where one side's true partner exists, which are wrong whatever the names.
   */
  oneSided: number;
  truth: number;
  matched: number;
  judged: number;
  correct: number;
  precision: number;
  recall: number;
  f1: number;
  diffSeconds: number;
  openSeconds: number;
  mb: number;
}

async function callLong(client: Client, name: string, args: Record<string, unknown>) {
  const r = await client.callTool({ name, arguments: args }, {
    timeout: 1_800_000,
    resetTimeoutOnProgress: true,
  });
  if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.structuredContent)}`);
  return r.structuredContent as Record<string, unknown>;
}

/** Opens two files and waits for both analyses (they run in parallel, one worker each). */
async function openBoth(client: Client, a: string, b: string): Promise<string[]> {
  const ids: string[] = [];
  for (const path of [a, b]) {
    ids.push(
      (await callLong(client, "open_database", { path, force_new: true })).database as string,
    );
  }
  for (const database of ids) {
    await callLong(client, "wait_for_analysis", { database, timeout: 3600 });
  }
  return ids;
}

/**
 * Functions Lua 5.4 renamed from 5.3 (same role, same file; checked against both sources): a
 * match between the two names is correct. ldump.c and lundump.c also went from DumpX/LoadX to
 * dumpX/loadX.
 */
const LUA54_RENAMES = new Map([
  ["typeerror", "luaL_typeerror"],
  ["pack", "tpack"],
  ["unpack", "tunpack"],
  ["seterrorobj", "luaD_seterrorobj"],
  ["index2addr", "index2value"],
  ["lua_newuserdata", "lua_newuserdatauv"],
  ["lua_getuservalue", "lua_getiuservalue"],
  ["lua_setuservalue", "lua_setiuservalue"],
  ["luaK_codeABC", "luaK_codeABCk"],
  ["findlocal", "luaG_findlocal"],
  ["LoadString", "loadStringN"],
  // Same parameters and role under a new name (lvm.c, ltm.c, lparser.c); 5.4's mainposition
  // takes (t, ktt, kvl) instead, and 5.3's (t, key) became mainpositionTV.
  ["luaV_div", "luaV_idiv"],
  ["luaT_callbinTM", "callbinTM"],
  ["assignment", "restassign"],
  ["mainposition", "mainpositionTV"],
  // lgc.c: the weak-table sweeps, same loops under new names.
  ["clearkeys", "clearbykeys"],
  ["clearvalues", "clearbyvalues"],
]);
/**
 * Functions 5.4 split in two, keeping a thin wrapper under the 5.3 name: 5.3 name → the 5.4
 * function that holds the 5.3 body. luaL_prepbuffsize is `return prepbuffsize(B, sz, -1)`,
 * luaO_arith calls luaO_rawarith then luaT_trybinTM, codebinexpval calls finishbinexpval;
 * 5.3's luaT_callTM(…, hasres) became luaT_callTM (no result) and luaT_callTMres (result).
 * 5.4's luaF_close calls luaF_closeupval (5.3's loop over open upvalues) and then closes the
 * to-be-closed variables; its luaB_costatus is `statname[auxstatus(L, co)]`, the switch of
 * 5.3's luaB_costatus moved to auxstatus.
 */
const LUA54_SPLITS = new Map([
  ["luaL_prepbuffsize", "prepbuffsize"],
  ["luaO_arith", "luaO_rawarith"],
  ["codebinexpval", "finishbinexpval"],
  ["luaT_callTM", "luaT_callTMres"],
  ["luaF_close", "luaF_closeupval"],
  ["luaB_costatus", "auxstatus"],
]);

/**
 * Functions Lua 5.3 renamed from 5.2, same role (checked in both sources): the tag-method calls
 * moved from lvm.c to ltm.c under luaT_ names, lua.c's message handler and llex.c's escape check
 * got new names.
 */
const LUA53_RENAMES = new Map([
  ["callTM", "luaT_callTM"],
  ["call_binTM", "luaT_callbinTM"],
  ["luaV_equalobj_", "luaV_equalobj"],
  ["luaV_tonumber", "luaV_tonumber_"],
  ["traceback", "msghandler"],
  ["escerror", "esccheck"],
  ["luaG_aritherror", "luaG_opinterror"],
  // String to number for the lexer and lua_stringtonumber; 5.3's also makes integers.
  ["luaO_str2d", "luaO_str2num"],
  // loadlib.c's C-library loader and lua.c's read-eval-print loop, same bodies.
  ["ll_loadfunc", "lookforfunc"],
  ["dotty", "doREPL"],
]);
const lua53Name = (n: string) => LUA53_RENAMES.get(n) ?? n;

/**
 * Functions Lua 5.2 renamed from 5.1, same role (checked in both sources): package loaders became
 * searchers, the lua_call family gained continuations (lua_callk …), integer keys of tables and
 * the barriers got new names. Functions 5.2 merged (lua_equal and lua_lessthan into lua_compare)
 * are left out: two old names cannot both be right.
 */
const LUA52_RENAMES = new Map([
  ["index2adr", "index2addr"],
  ["loader_C", "searcher_C"],
  ["loader_Croot", "searcher_Croot"],
  ["loader_Lua", "searcher_Lua"],
  ["loader_preload", "searcher_preload"],
  ["luaH_getnum", "luaH_getint"],
  ["luaH_setnum", "luaH_setint"],
  ["luaL_typerror", "typeerror"],
  ["luaD_seterrorobj", "seterrorobj"],
  ["luaV_equalval", "luaV_equalobj_"],
  ["luaB_unpack", "unpack"],
  ["lua_call", "lua_callk"],
  ["lua_pcall", "lua_pcallk"],
  ["lua_yield", "lua_yieldk"],
  ["lua_tointeger", "lua_tointegerx"],
  ["lua_tonumber", "lua_tonumberx"],
  ["lua_objlen", "lua_rawlen"],
  ["luaL_loadbuffer", "luaL_loadbufferx"],
  ["luaL_loadfile", "luaL_loadfilex"],
  ["luaL_prepbuffer", "luaL_prepbuffsize"],
  ["luaC_barrierf", "luaC_barrier_"],
  ["luaC_barrierback", "luaC_barrierback_"],
  ["luaC_freeall", "luaC_freeallobjects"],
  ["luaX_lexerror", "lexerror"],
  ["luaD_callhook", "luaD_hook"],
  // ltable.c exported two statics; liolib.c's file methods went from io_ to f_.
  ["newkey", "luaH_newkey"],
  ["resize", "luaH_resize"],
  ["io_tostring", "f_tostring"],
  ["io_gc", "f_gc"],
  // lvm.c's arithmetic fallback, same parameters, exported.
  ["Arith", "luaV_arith"],
  // lvm.c's equality metamethod lookup, the same body, used for TM_EQ only in both.
  ["get_compTM", "get_equalTM"],
  // lobject.c's log2 by table, called at the same two sites of ltable.c: 5.1's through the
  // ceillog2 macro (x - 1, + 1), 5.2's with both folded in.
  ["luaO_log2", "luaO_ceillog2"],
  // liolib.c's file-operation result (boolean, or nil, message and errno), the same body,
  // moved to lauxlib.c as API.
  ["pushresult", "luaL_fileresult"],
]);
/**
 * Where 5.3 and 5.2 moved an old body (see LUA54_SPLITS): 5.3's luaV_gettable/settable are
 * macros around a fast path that call luaV_finishget/finishset with the 5.2 loop; 5.2's
 * luaB_tostring is `luaL_tolstring(L, 1, NULL)` on 5.1's body, and 5.2's primaryexp kept the
 * name and prefix while the suffix loop of 5.1's went to suffixedexp. 5.3's luaH_getstr picks
 * between luaH_getshortstr (5.2's luaH_getstr) and the generic lookup; 5.2's check_next (save
 * the current character if in a set) became check_next2 for the two-character sets and
 * check_next1 (no save) for the single ones. 5.2's findfile reads the path and calls searchpath,
 * which holds 5.1's findfile loop; its gethooktable is a macro around luaL_getsubtable, the
 * body of 5.1's gethooktable made general.
 */
const LUA53_SPLITS = new Map([
  ["luaV_gettable", "luaV_finishget"],
  ["luaV_settable", "luaV_finishset"],
  ["luaH_getstr", "luaH_getshortstr"],
  ["check_next", "check_next2"],
]);
const LUA52_SPLITS = new Map([
  ["luaB_tostring", "luaL_tolstring"],
  ["primaryexp", "suffixedexp"],
  ["findfile", "searchpath"],
  ["gethooktable", "luaL_getsubtable"],
]);
const lua52Name = (n: string) => LUA52_RENAMES.get(n) ?? n;

const lua54Name = (n: string) =>
  LUA54_RENAMES.get(n) ?? n.replace(/^(?:Dump|Load)/, (x) => x.toLowerCase());

/** Every matched pair of a diff_databases call, following its pages. */
async function matchedRows(client: Client, a: string, b: string, matching: string) {
  const rows: Record<string, string>[] = [];
  let offset: number | undefined = 0;
  while (offset !== undefined) {
    const page = await callLong(client, "diff_databases", {
      a,
      b,
      list: "matched",
      limit: 1000,
      offset,
      matching,
    });
    rows.push(...(page.items as Record<string, string>[]));
    offset = page.next_offset as number | undefined;
  }
  return rows;
}

async function score(
  client: Client,
  pair: string,
  a: string,
  b: string,
  rename: (name: string) => string = (n) => n,
  splits?: Map<string, string>,
): Promise<Scored> {
  const t0 = performance.now();
  const ids = await openBoth(client, `${a}.stripped`, `${b}.stripped`);
  const openSeconds = (performance.now() - t0) / 1000;
  const t1 = performance.now();
  const rows = await matchedRows(client, ids[0]!, ids[1]!, "precise");
  const diffSeconds = (performance.now() - t1) / 1000;
  const [symA0, symB] = await Promise.all([symbols(a), symbols(b)]);
  const symA = new Map([...symA0].map(([at, n]) => [at, rename(n)]));
  const found = async (id: string) => {
    const starts = new Set<number>();
    let offset: number | undefined = 0;
    while (offset !== undefined) {
      const p = await callLong(client, "list_functions", { database: id, offset, limit: 10000 });
      for (const f of p.items as { start: string }[]) starts.add(Number(f.start));
      offset = p.next_offset as number | undefined;
    }
    return starts;
  };
  const [foundA, foundB] = await Promise.all([found(ids[0]!), found(ids[1]!)]);
  const dump = Deno.env.get("REMCP_BENCH_DUMP");
  if (dump) {
    const [ga, gb] = await Promise.all(ids.map((id) => featuresOf(client, id)));
    const [pa, pb] = [ga!.pointers, gb!.pointers];
    await writeDump(dump, {
      pair,
      a: ga!.features,
      b: gb!.features,
      ...(pa && pb ? { pointersA: pa, pointersB: pb } : {}),
      symA: [...symA],
      symA0: [...symA0],
      symB: [...symB],
      foundA: [...foundA],
      foundB: [...foundB],
      ...(splits ? { splits: [...splits] } : {}),
      served: rows.map((r) => [Number(r.a_start), Number(r.b_start)]),
    });
  }
  const score = (matched: typeof rows) =>
    scoreMatches(
      matched.map((r) => [Number(r.a_start), Number(r.b_start)] as const),
      symA,
      symB,
      foundA,
      foundB,
    );
  const s = score(rows);
  // The same diff with `matching: "broad"` (features kept by the server: matching only).
  const sb = score(await matchedRows(client, ids[0]!, ids[1]!, "broad"));
  const broad = { precision: sb.precision, recall: sb.recall, f1: sb.f1 };
  const wrong: Record<string, number> = {};
  for (const i of s.wrong) wrong[rows[i]!.round!] = (wrong[rows[i]!.round!] ?? 0) + 1;
  const namesA = new Set(symA.values());
  const namesB = new Set(symB.values());
  const isOneSided = (i: number) =>
    !namesB.has(symA.get(Number(rows[i]!.a_start))!) &&
    !namesA.has(symB.get(Number(rows[i]!.b_start))!);
  const pairName = (i: number) => {
    const r = rows[i]!;
    return [symA0.get(Number(r.a_start)), symB.get(Number(r.b_start))] as const;
  };
  let splitAware: Scored["splitAware"];
  if (splits) {
    const moved = s.wrong.filter((i) => {
      const [na, nb] = pairName(i);
      return na !== undefined && splits.get(na) === nb;
    }).length;
    const correct = s.correct + moved;
    const precision = correct / s.judged;
    const recall = Math.min(1, correct / s.truth);
    splitAware = {
      precision,
      recall,
      f1: (2 * precision * recall) / (precision + recall),
      correct,
    };
  }
  if (Deno.env.get("REMCP_BENCH_MISSES") === "1") {
    for (const i of s.wrong) {
      const [na, nb] = pairName(i);
      console.log(
        `  wrong: ${na} → ${nb} (${rows[i]!.round}, similarity ${rows[i]!.similarity}${
          isOneSided(i) ? ", one-sided" : ""
        })`,
      );
    }
    const matchedA = new Map(rows.map((r) => [Number(r.a_start), Number(r.b_start)]));
    const matchedB = new Set(rows.map((r) => Number(r.b_start)));
    const startB = new Map([...symB].map(([at, n]) => [n, at]));
    for (const [at, n] of symA) {
      const bt = startB.get(n);
      if (bt === undefined || !foundA.has(at) || !foundB.has(bt) || matchedA.get(at) === bt) {
        continue;
      }
      const mine = matchedA.has(at) ? "matched elsewhere" : "unmatched";
      console.log(
        `  missed: ${n} (a ${mine}, b ${matchedB.has(bt) ? "matched elsewhere" : "unmatched"})`,
      );
    }
  }
  for (const id of ids) await callLong(client, "close_database", { database: id, force: true });
  const mb = ((await Deno.stat(`${a}.stripped`)).size + (await Deno.stat(`${b}.stripped`)).size) /
    2 / 1e6;
  return {
    pair,
    broad,
    ...(splitAware ? { splitAware } : {}),
    wrong,
    oneSided: s.wrong.filter(isOneSided).length,
    truth: s.truth,
    matched: rows.length,
    judged: s.judged,
    correct: s.correct,
    precision: s.precision,
    recall: s.recall,
    f1: s.f1,
    diffSeconds,
    openSeconds,
    mb,
  };
}

/** The load average over the last minute (the machine is shared: every time is read against it). */
function load(): string {
  try {
    return Deno.readTextFileSync("/proc/loadavg").split(" ")[0]!;
  } catch {
    return "?";
  }
}

/**
 * CPU seconds used so far by the processes this benchmark started (the server, its workers) —
 * unlike wall time, roughly independent of what else the machine runs. Linux only; 0 elsewhere.
 */
function childCpuSeconds(): number {
  const parent = new Map<number, number>();
  const ticks = new Map<number, number>();
  try {
    for (const e of Deno.readDirSync("/proc")) {
      if (!/^\d+$/.test(e.name)) continue;
      try {
        const stat = Deno.readTextFileSync(`/proc/${e.name}/stat`);
        const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        parent.set(Number(e.name), Number(f[1]));
        ticks.set(Number(e.name), Number(f[11]) + Number(f[12]));
      } catch { /* ended meanwhile */ }
    }
  } catch {
    return 0;
  }
  let total = 0;
  for (const [pid, t] of ticks) {
    let p = parent.get(pid);
    while (p !== undefined && p > 1 && p !== Deno.pid) p = parent.get(p);
    if (p === Deno.pid && pid !== Deno.pid) total += t;
  }
  return total / 100;
}

/** Diff time of two large stripped binaries without symbols (no accuracy, only speed). */
async function timeOnly(h: Harness, name: string, a: string, b: string) {
  const client = h.client;
  const t0 = performance.now();
  const ids = await openBoth(client, a, b);
  const openSeconds = (performance.now() - t0) / 1000;
  const loadBefore = load();
  const cpu0 = childCpuSeconds();
  const t1 = performance.now();
  const d = await callLong(client, "diff_databases", { a: ids[0], b: ids[1], limit: 1 });
  const diffSeconds = (performance.now() - t1) / 1000;
  const cpu = childCpuSeconds() - cpu0;
  const mb = ((await Deno.stat(a)).size + (await Deno.stat(b)).size) / 2 / 1e6;
  // The matcher alone on the same features, in this process: what the diff costs beyond reading
  // features (the workers keep them, so this second read is mostly transport).
  const [ga, gb] = await Promise.all(ids.map((id) => featuresOf(client, id)));
  const pointers = ga!.pointers && gb!.pointers ? { a: ga!.pointers, b: gb!.pointers } : undefined;
  const t2 = performance.now();
  const c2 = process.cpuUsage();
  const m = matchFunctions(ga!.features, gb!.features, pointers ? { pointers } : {});
  const matchSeconds = (performance.now() - t2) / 1000;
  const c3 = process.cpuUsage(c2);
  const matchCpu = (c3.user + c3.system) / 1e6;
  console.log(
    `${name}\n  ${mb.toFixed(2)} MB each, functions ${
      (d.a as { functions: number }).functions
    } / ` +
      `${(d.b as { functions: number }).functions}, totals ${JSON.stringify(d.totals)}; diff ` +
      `${diffSeconds.toFixed(1)} s (${cpu.toFixed(1)} CPU-s in the server and workers; load ` +
      `${loadBefore} → ${load()}) vs open+analysis ${openSeconds.toFixed(1)} s ` +
      `(${(diffSeconds / openSeconds).toFixed(2)}×); matching alone ${
        matchSeconds.toFixed(1)
      } s, ` +
      `${matchCpu.toFixed(1)} CPU-s (${(matchSeconds / diffSeconds).toFixed(2)}× the diff, ` +
      `${m.matches.length} pairs)`,
  );
  for (const id of ids) await callLong(client, "close_database", { database: id, force: true });
  await againFromStore(h.stateDir, a, b, d);
}

/**
 * The same diff by a second server on the same state folder: new workers, the analyses and the
 * diffing features read from the databases' stores instead of computed.
 */
async function againFromStore(
  stateDir: string,
  a: string,
  b: string,
  first: Record<string, unknown>,
) {
  const h2 = await startRemcp({ stateDir, env: { REMCP_CHECK_OUTPUT: "0" } });
  try {
    const ids = await openBoth(h2.client, a, b);
    const loadBefore = load();
    const cpu0 = childCpuSeconds();
    const t0 = performance.now();
    const d = await callLong(h2.client, "diff_databases", { a: ids[0], b: ids[1], limit: 1 });
    const seconds = (performance.now() - t0) / 1000;
    const cpu = childCpuSeconds() - cpu0;
    const computed = (x: unknown) => (x as { features_computed?: number }).features_computed;
    const same = JSON.stringify(d.totals) === JSON.stringify(first.totals);
    console.log(
      `  second server, features from the stores: diff ${seconds.toFixed(1)} s (${
        cpu.toFixed(1)
      } CPU-s; load ${loadBefore} → ${load()}), features computed ${computed(d.a)} / ` +
        `${computed(d.b)} (first server: ${computed(first.a)} / ${computed(first.b)}), ` +
        `${same ? "same totals" : `totals differ: ${JSON.stringify(d.totals)}`}`,
    );
  } finally {
    await h2.close();
  }
}

/** Every function_features row of database `id` and its function pointers, as the diff service reads them. */
async function featuresOf(client: Client, id: string): Promise<Gathered> {
  // The server's own pager: function_features page by page, with each page's function pointers.
  const call = (name: string, args: Record<string, unknown>) =>
    callLong(client, name, { ...args, database: id }) as Promise<Record<string, unknown>>;
  return await gatherFeatures(call, "auto", () => {});
}

/** Two large stripped binaries of one source, timed only (they carry no symbols to score). */
const SPEED_PAIRS = [
  {
    name: "speed: qemu-aarch64 → qemu-aarch64_be (QEMU user mode, little- vs big-endian guest)",
    a: "/usr/bin/qemu-aarch64",
    b: "/usr/bin/qemu-aarch64_be",
    missing: "Debian's qemu-user is not installed",
  },
  {
    name: "speed: ld.gold for arm → ld.gold for aarch64 (stripped, no symbols)",
    a: "/usr/bin/arm-linux-gnueabihf-ld.gold",
    b: "/usr/bin/aarch64-linux-gnu-ld.gold",
    missing: "Debian's binutils-arm-linux-gnueabihf and -aarch64-linux-gnu are not installed",
  },
];

if (import.meta.main) {
  console.log(`work folder: ${WORK}`);
  const src = await sources();
  type Pair = {
    name: string;
    a: () => Promise<string | undefined>;
    b: () => Promise<string | undefined>;
    /** Maps a's symbol names to b's where the new version renamed functions. */
    rename?: (name: string) => string;
    /** Functions the new version split (old name → where the old body went). */
    splits?: Map<string, string>;
  };
  const pairs: Pair[] = [];
  const lua = (tag: string, dir: string | undefined, cc: string, opt: string) => () =>
    dir
      ? build(`${tag}-${cc}-${opt.slice(1)}`, cc, opt, luaSources(dir))
      : Promise.resolve(undefined);
  const sqlite = (tag: string, dir: string | undefined, cc: string, opt: string) => () =>
    dir
      ? build(`${tag}-${cc}-${opt.slice(1)}`, cc, opt, sqliteSources(dir))
      : Promise.resolve(undefined);
  pairs.push(
    {
      name: "version: lua 5.4.4 → 5.4.4-3+deb12u1, the CVE patches (gcc -O2)",
      a: lua("lua544", src.lua544, "gcc", "-O2"),
      b: lua("lua544deb", src.lua544deb, "gcc", "-O2"),
    },
    {
      name: "version: lua 5.3.6 → 5.4.4 (gcc -O2)",
      a: lua("lua536", src.lua536, "gcc", "-O2"),
      b: lua("lua544", src.lua544, "gcc", "-O2"),
      rename: lua54Name,
      splits: LUA54_SPLITS,
    },
    {
      name: "version: lua 5.2.4 → 5.3.6 (gcc -O2)",
      a: lua("lua524", src.lua524, "gcc", "-O2"),
      b: lua("lua536", src.lua536, "gcc", "-O2"),
      rename: lua53Name,
      splits: LUA53_SPLITS,
    },
    {
      name: "version: lua 5.1.5 → 5.2.4 (gcc -O2)",
      a: lua("lua515", src.lua515, "gcc", "-O2"),
      b: lua("lua524", src.lua524, "gcc", "-O2"),
      rename: lua52Name,
      splits: LUA52_SPLITS,
    },
    {
      name: "lua 5.4.4 gcc -O2 → -O3",
      a: lua("lua544", src.lua544, "gcc", "-O2"),
      b: lua("lua544", src.lua544, "gcc", "-O3"),
    },
    {
      name: "lua 5.4.4 gcc -O2 → clang -O2",
      a: lua("lua544", src.lua544, "gcc", "-O2"),
      b: lua("lua544", src.lua544, "clang", "-O2"),
    },
    {
      name: "version: sqlite 3.40.1 → 3.40.1-2+deb12u2, Debian's security patches (gcc -O2)",
      a: sqlite("sqlite", src.sqlite, "gcc", "-O2"),
      b: sqlite("sqlitedeb", src.sqlitedeb, "gcc", "-O2"),
    },
    {
      name: "sqlite 3.40.1 gcc -O2 → -O3",
      a: sqlite("sqlite", src.sqlite, "gcc", "-O2"),
      b: sqlite("sqlite", src.sqlite, "gcc", "-O3"),
    },
    {
      name: "sqlite 3.40.1 gcc -O2 → clang -O2",
      a: sqlite("sqlite", src.sqlite, "gcc", "-O2"),
      b: sqlite("sqlite", src.sqlite, "clang", "-O2"),
    },
  );
  /** A library built from a folder of an `apt-get source` tree (undefined when missing). */
  const library = (
    lib: string,
    tag: string,
    pkg: string,
    tree: string,
    sub: string,
  ) =>
  async () => {
    const top = await debSource(pkg, tree);
    return top
      ? build(`${tag}-gcc-O2`, "gcc", "-O2", LIBRARY_SOURCES[lib]!(join(top, sub)))
      : undefined;
  };
  const cmake = ["cmake", "cmake-3.25.1"] as const;
  /** Expat 2.5.0 as released: the orig tarball `apt-get source expat` fetched, unpatched. */
  const expatReleased = async () => {
    if (!(await debSource("expat", "expat-2.5.0"))) return undefined;
    const dir = join(WORK, "libexpat-R_2_5_0");
    if (!(await exists(dir)) && !(await sh("tar xzf expat_2.5.0.orig.tar.gz"))) return undefined;
    return build(
      "expat250orig-gcc-O2",
      "gcc",
      "-O2",
      LIBRARY_SOURCES.expat!(join(dir, "expat/lib")),
    );
  };
  /**
   * nghttp2 1.52.0 from Debian's tree: its build generates nghttp2ver.h (the version string and
   * number) from a template, done here as configure would; CMake's copy ships the header.
   */
  const nghttp2Debian = async () => {
    const top = await debSource("nghttp2", "nghttp2-1.52.0");
    if (!top) return undefined;
    const ver = join(top, "lib/includes/nghttp2/nghttp2ver.h");
    if (
      !(await exists(ver)) &&
      !(await sh(
        `sed -e s/@PACKAGE_VERSION@/1.52.0/ -e s/@PACKAGE_VERSION_NUM@/0x013400/ ${ver}.in ` +
          `> ${ver}.new && mv ${ver}.new ${ver}`,
      ))
    ) return undefined;
    return build("nghttp2152-gcc-O2", "gcc", "-O2", LIBRARY_SOURCES.nghttp2!(join(top, "lib")));
  };
  /**
   * PCRE2 10.42 from Debian's tree: as its NON-AUTOTOOLS-BUILD says for a build without
   * configure, pcre2.h is the shipped pcre2.h.generic and pcre2_chartables.c the shipped .dist
   * (PHP's copy carries both made). Debian's newest pcre2 revision is pinned to the one the
   * mirror here holds.
   */
  const pcre2Debian = async () => {
    const top = await debSource("pcre2=10.42-1", "pcre2-10.42");
    if (!top) return undefined;
    const src = join(top, "src");
    if (
      !(await exists(join(src, "pcre2_chartables.c"))) &&
      !(await sh(
        "cp pcre2.h.generic pcre2.h && cp pcre2_chartables.c.dist pcre2_chartables.c",
        src,
      ))
    ) return undefined;
    return build("pcre2_1042-gcc-O2", "gcc", "-O2", LIBRARY_SOURCES.pcre2!(src));
  };
  /**
   * c-ares 1.28.1 as Node.js 18.20.4 vendors it (deps/cares/ of Debian's nodejs source, whose
   * patches leave it alone): only that folder is unpacked from the 29 MB orig tarball.
   */
  const caresInNode = async () => {
    const dir = join(WORK, "node-v18.20.4/deps/cares");
    if (
      !(await exists(dir)) &&
      !(await sh(
        "apt-get source -qq --download-only nodejs=18.20.4+dfsg-1~deb12u2 2>&1 && " +
          "tar xJf nodejs_18.20.4+dfsg.orig.tar.xz node-v18.20.4/deps/cares",
      ))
    ) return undefined;
    return build("cares1281-gcc-O2", "gcc", "-O2", LIBRARY_SOURCES.cares!(dir));
  };
  /**
   * hiredis 1.0.3 as Redis 7.0.15 vendors it (deps/hiredis/ of Debian's redis source, whose
   * patches leave it alone): only that folder is unpacked from the orig tarball.
   */
  const hiredisInRedis = async () => {
    const dir = join(WORK, "redis-7.0.15/deps/hiredis");
    if (
      !(await exists(dir)) &&
      !(await sh(
        "apt-get source -qq --download-only redis 2>&1 && " +
          "tar xzf redis_7.0.15.orig.tar.gz redis-7.0.15/deps/hiredis",
      ))
    ) return undefined;
    return build("hiredis103-gcc-O2", "gcc", "-O2", LIBRARY_SOURCES.hiredis!(dir));
  };
  /**
   * LMDB 0.9.29 as OpenLDAP 2.5.13 vendors it (libraries/liblmdb/ of Debian's openldap source,
   * whose patches leave it alone): only that folder is unpacked from the orig tarball.
   */
  const lmdbInOpenldap = async () => {
    const dir = join(WORK, "openldap-2.5.13/libraries/liblmdb");
    if (
      !(await exists(dir)) &&
      !(await sh(
        "apt-get source -qq --download-only openldap=2.5.13+dfsg-5 2>&1 && " +
          "tar xJf openldap_2.5.13+dfsg.orig.tar.xz openldap-2.5.13/libraries/liblmdb",
      ))
    ) return undefined;
    return build("lmdb0929-gcc-O2", "gcc", "-O2", LIBRARY_SOURCES.lmdb!(dir));
  };
  /**
   * ngtcp2 0.12.1 from Debian's tree: its build generates version.h (the version string and
   * number) from a template, done here as configure would; Node.js's copy ships the header.
   */
  const ngtcp2Debian = async () => {
    const top = await debSource("ngtcp2", "ngtcp2-0.12.1+dfsg");
    if (!top) return undefined;
    const ver = join(top, "lib/includes/ngtcp2/version.h");
    if (
      !(await exists(ver)) &&
      !(await sh(
        `sed -e s/@PACKAGE_VERSION@/0.12.1/ -e s/@PACKAGE_VERSION_NUM@/0x000c01/ ${ver}.in ` +
          `> ${ver}.new && mv ${ver}.new ${ver}`,
      ))
    ) return undefined;
    return build("ngtcp2_0121-gcc-O2", "gcc", "-O2", LIBRARY_SOURCES.ngtcp2!(join(top, "lib")));
  };
  /**
   * ngtcp2 1.3.0 as Node.js 18.20.4 vendors it (deps/ngtcp2/ngtcp2/ of Debian's nodejs source,
   * whose patches leave it alone): only that folder is unpacked from the orig tarball.
   */
  const ngtcp2InNode = async () => {
    const dir = join(WORK, "node-v18.20.4/deps/ngtcp2/ngtcp2");
    if (
      !(await exists(dir)) &&
      !(await sh(
        "apt-get source -qq --download-only nodejs=18.20.4+dfsg-1~deb12u2 2>&1 && " +
          "tar xJf nodejs_18.20.4+dfsg.orig.tar.xz node-v18.20.4/deps/ngtcp2/ngtcp2",
      ))
    ) return undefined;
    return build("ngtcp2_130-gcc-O2", "gcc", "-O2", LIBRARY_SOURCES.ngtcp2!(join(dir, "lib")));
  };
  /** libfuse from Debian's fuse or fuse3 tree, with the API version its own build uses. */
  const fuse =
    (tag: string, pkg: string, tree: string, api: number, version: string) => async () => {
      const top = await debSource(pkg, tree);
      return top
        ? build(
          `${tag}-gcc-O2`,
          "gcc",
          "-O2",
          `${LIBRARY_SOURCES.fuse!(top)} -DFUSE_USE_VERSION=${api} -DFUSE_BENCH_VERSION=${version}`,
        )
        : undefined;
    };
  /**
   * SQLCipher 3.4.1's SQLite 3.15.2: its amalgamation only compiles with the codec on (it
   * inlines btreeInt.h inside the codec's section), so the fork's ~90 functions and OpenSSL's
   * libcrypto come along.
   */
  const sqlcipher = async () => {
    const dir = await debSource("sqlcipher", "sqlcipher-3.4.1");
    if (!dir) return undefined;
    if (
      !(await exists(join(dir, "sqlite3.c"))) &&
      !(await sh("./configure -q >/dev/null && make -s sqlite3.c shell.c", dir))
    ) return undefined;
    return build(
      "sqlite3152-gcc-O2",
      "gcc",
      "-O2",
      `-DSQLITE_HAS_CODEC -DSQLCIPHER_CRYPTO_OPENSSL ${sqliteSources(dir)} -lcrypto`,
    );
  };
  pairs.push(
    {
      name: "version: zlib 1.2.12 (vendored in CMake 3.25.1) → 1.2.13 (Debian's zlib) (gcc -O2)",
      a: library("zlib", "zlib1212", ...cmake, "Utilities/cmzlib"),
      b: library("zlib", "zlib1213", "zlib", "zlib-1.2.13.dfsg", "."),
      rename: unmangleCmZlib,
    },
    {
      name: "version: zstd 1.5.0 (vendored in CMake 3.25.1) → 1.5.4 (Debian's libzstd) (gcc -O2)",
      a: library("zstd", "zstd150", ...cmake, "Utilities/cmzstd/lib"),
      b: library("zstd", "zstd154", "libzstd", "libzstd-1.5.4+dfsg2", "lib"),
      rename: zstd154Name,
      splits: ZSTD154_SPLITS,
    },
    {
      name:
        "version: liblzma 5.2.5 (vendored in CMake 3.25.1) → 5.4.1 (Debian's xz-utils) (gcc -O2)",
      a: library("liblzma", "lzma525", ...cmake, "Utilities/cmliblzma"),
      b: library("liblzma", "lzma541", "xz-utils", "xz-utils-5.4.1", "src"),
      rename: lzma54Name,
    },
    {
      name:
        "version: expat 2.4.6 (vendored in CMake 3.25.1) → 2.5.0-1+deb12u2 (Debian's expat) (gcc -O2)",
      a: library("expat", "expat246", ...cmake, "Utilities/cmexpat/lib"),
      b: library("expat", "expat250", "expat", "expat-2.5.0", "expat/lib"),
    },
    {
      name: "version: expat 2.4.6 (vendored in CMake 3.25.1) → 2.5.0 as released (gcc -O2)",
      a: library("expat", "expat246", ...cmake, "Utilities/cmexpat/lib"),
      b: expatReleased,
    },
    {
      name:
        "version: nghttp2 1.40.0 (vendored in CMake 3.25.1) → 1.52.0 (Debian's nghttp2) (gcc -O2)",
      a: library("nghttp2", "nghttp2140", ...cmake, "Utilities/cmnghttp2/lib"),
      b: nghttp2Debian,
      rename: nghttp2152Name,
    },
    {
      name:
        "version: libarchive 3.6.0 (vendored in CMake 3.25.1) → 3.6.2-1+deb12u4 (Debian's libarchive) (gcc -O2)",
      a: library("libarchive", "libarchive360", ...cmake, "Utilities/cmlibarchive/libarchive"),
      b: library("libarchive", "libarchive362", "libarchive", "libarchive-3.6.2", "libarchive"),
    },
    {
      name:
        "version: curl 7.86.0 (vendored in CMake 3.25.1) → 7.88.1-10+deb12u15 (Debian's curl) (gcc -O2)",
      a: library("curl", "curl7860", ...cmake, "Utilities/cmcurl"),
      b: library("curl", "curl7881", "curl", "curl-7.88.1", "."),
      rename: curl788Name,
      splits: CURL788_SPLITS,
    },
    {
      name: "version: pcre2 10.40 (vendored in PHP 8.2.32) → 10.42 (Debian's pcre2) (gcc -O2)",
      a: library(
        "pcre2",
        "pcre2_1040",
        "php8.2=8.2.32-1~deb12u1",
        "php8.2-8.2.32",
        "ext/pcre/pcre2lib",
      ),
      b: pcre2Debian,
    },
    {
      name:
        "version: c-ares 1.18.1 (Debian's c-ares) → 1.28.1 (vendored in Node.js 18.20.4) (gcc -O2)",
      a: library("cares", "cares1181", "c-ares", "c-ares-1.18.1", "."),
      b: caresInNode,
      rename: cares128Name,
      splits: CARES128_SPLITS,
    },
    {
      name:
        "version: hiredis 0.14.1 (Debian's hiredis) → 1.0.3 (vendored in Redis 7.0.15) (gcc -O2)",
      a: library("hiredis", "hiredis0141", "hiredis", "hiredis-0.14.1", "."),
      b: hiredisInRedis,
      rename: hiredis103Name,
    },
    {
      name: "version: lmdb 0.9.24 (Debian's lmdb) → 0.9.29 (vendored in OpenLDAP 2.5.13) (gcc -O2)",
      a: library("lmdb", "lmdb0924", "lmdb", "lmdb-0.9.24", "libraries/liblmdb"),
      b: lmdbInOpenldap,
      rename: lmdb0929Name,
    },
    {
      name:
        "version: ngtcp2 0.12.1 (Debian's ngtcp2) → 1.3.0 (vendored in Node.js 18.20.4) (gcc -O2)",
      a: ngtcp2Debian,
      b: ngtcp2InNode,
      rename: ngtcp2130Name,
    },
    {
      name: "version: libfuse 2.9.9 (Debian's fuse) → 3.14.0 (Debian's fuse3) (gcc -O2)",
      a: fuse("fuse299", "fuse", "fuse-2.9.9", 26, "2.9.9"),
      b: fuse("fuse3140", "fuse3", "fuse3-3.14.0", 312, "3.14.0"),
      rename: fuse314Name,
      splits: FUSE314_SPLITS,
    },
    {
      name:
        "version: sqlite 3.15.2 (SQLCipher 3.4.1's fork, codec on) → 3.40.1 as released (gcc -O2)",
      a: sqlcipher,
      b: sqlite("sqlite", src.sqlite, "gcc", "-O2"),
      rename: sqlite340Name,
    },
  );
  const rz = rizinForBench();
  if ("reason" in rz) console.log(`rz-diff side by side skipped: ${rz.reason}`);
  const rzMinutes = Number(Deno.env.get("REMCP_BENCH_RZDIFF_CPU_MIN") ?? "");
  const rzLimit = rzMinutes > 0 ? rzMinutes * 60 : RZ_DIFF_CPU_LIMIT_SECONDS;
  const h = await startRemcp({ env: { REMCP_CHECK_OUTPUT: "0" } });
  try {
    const only = Deno.env.get("REMCP_BENCH_ONLY");
    for (const p of pairs) {
      if (only !== undefined && !p.name.includes(only)) continue;
      const a = await p.a();
      const b = await p.b();
      if (!a || !b) {
        console.log(`${p.name}: not built (missing sources or compiler; see the errors above)`);
        continue;
      }
      const r = await score(h.client, p.name, a, b, p.rename, p.splits);
      console.log(
        `${r.pair}\n  ${r.mb.toFixed(2)} MB each, truth ${r.truth}, matched ${r.matched}, ` +
          `judged ${r.judged}, correct ${r.correct}: precision ${r.precision.toFixed(3)}, ` +
          `recall ${r.recall.toFixed(3)}, F1 ${r.f1.toFixed(3)}; diff ${
            r.diffSeconds.toFixed(1)
          } s ` +
          `vs open+analysis ${r.openSeconds.toFixed(1)} s (${
            (r.diffSeconds / r.openSeconds).toFixed(2)
          }×)\n  wrong pairs by round: ${JSON.stringify(r.wrong)}; one-sided (a's name ` +
          `not in b, b's not in a): ${r.oneSided}`,
      );
      console.log(
        `  matching "broad": precision ${r.broad.precision.toFixed(3)}, recall ` +
          `${r.broad.recall.toFixed(3)}, F1 ${r.broad.f1.toFixed(3)}`,
      );
      if (r.splitAware) {
        const x = r.splitAware;
        console.log(
          `  with splits counted as correct: correct ${x.correct}, precision ` +
            `${x.precision.toFixed(3)}, recall ${x.recall.toFixed(3)}, F1 ${x.f1.toFixed(3)}`,
        );
      }
      if (!("reason" in rz)) {
        await printRzDiffBeside(
          rz,
          a,
          b,
          await symbols(a),
          await symbols(b),
          r,
          p.rename,
          rzLimit,
        );
      }
    }
    for (const p of SPEED_PAIRS) {
      if (only !== undefined && !p.name.includes(only)) continue;
      if ((await exists(p.a)) && (await exists(p.b))) await timeOnly(h, p.name, p.a, p.b);
      else console.log(`${p.name}: skipped (${p.missing})`);
    }
  } finally {
    await h.close();
  }
}
