#!/usr/bin/env bash
# corpus.sh - build the real-program corpus that bench/accuracy.ts scores function discovery on:
# programs from Debian source packages, built with each available compiler at -O0/-O2/-O3 for
# each instruction set, unstripped (accuracy.ts strips a copy and takes the truth from the
# symbols). The corpus stays outside the repository.
#
#   bench/corpus.sh [DIR] [FILTER...]     (DIR default: $REMCP_CORPUS or ~/.cache/remcp-corpus)
#
# FILTER words keep only builds whose name (ISA-CC-OPT-PROGRAM) contains one of them, e.g.
# `bench/corpus.sh /tmp/corpus x86_64 lua`.
#
# Needs: deb-src lines in /etc/apt/sources.list.d (Types: deb-src) and `apt-get update`, so that
# `apt-get source --download-only` fetches the sources; tcl (sqlite3's amalgamation is generated
# by tclsh); gcc and clang; for other ISAs Debian's cross compilers (gcc-aarch64-linux-gnu,
# gcc-arm-linux-gnueabihf, gcc-mips-linux-gnu, gcc-riscv64-linux-gnu, gcc-powerpc64le-linux-gnu).
# A missing compiler or a failed build is reported and skipped. Programs are compiled straight
# from their file lists (no configure run per build), so one recipe serves every target.

set -u
export LC_ALL=C
CORPUS=${1:-${REMCP_CORPUS:-$HOME/.cache/remcp-corpus}}
shift || true
FILTERS=("$@")
SRC=$CORPUS/src
X=$CORPUS/x
BIN=$CORPUS/bin
LOG=$CORPUS/log
mkdir -p "$SRC" "$X" "$BIN" "$LOG"

PACKAGES="lua5.4 bzip2 zlib expat libyaml pcre2 lz4 libzstd cjson sqlite3"

# want NAME: no filters, or NAME contains one of them.
want() {
    local f
    for f in "${FILTERS[@]}"; do [[ $1 == *"$f"* ]] && return 0; done
    [ "${#FILTERS[@]}" -eq 0 ]
}

fetch() {
    (cd "$SRC" && for p in $PACKAGES; do
        ls "$SRC"/"${p}"_*.orig.tar.* >/dev/null 2>&1 && continue
        apt-get source --download-only "$p" >"$LOG/fetch-$p.log" 2>&1 ||
            echo "cannot fetch $p (deb-src lines missing? see $LOG/fetch-$p.log)" >&2
    done)
    local f
    for f in "$SRC"/*.orig.tar.*; do
        case $f in *.asc) continue ;; esac
        [ -e "$X/.done-$(basename "$f")" ] && continue
        tar -C "$X" -xf "$f" && touch "$X/.done-$(basename "$f")"
    done
}

dir_of() { ls -d "$X"/$1 2>/dev/null | head -n 1; }

# sqlite3's sources need generating into the amalgamation once (host tools, tclsh).
sqlite_amalgamation() {
    local d
    d=$(dir_of 'sqlite3-*') || return 1
    [ -f "$CORPUS/sqlite/sqlite3.c" ] && return 0
    command -v tclsh >/dev/null || { echo "sqlite3: tclsh missing (apt-get install tcl)" >&2; return 1; }
    mkdir -p "$CORPUS/sqlite"
    (cd "$CORPUS/sqlite" && "$d/configure" --disable-tcl >"$LOG/sqlite-configure.log" 2>&1 &&
        make sqlite3.c shell.c >"$LOG/sqlite-make.log" 2>&1)
}

# recipe PROGRAM: sets FILES (paths), CFLAGS_P, LIBS_P and may write headers into $2 (build dir).
recipe() {
    local p=$1 b=$2 d
    FILES="" CFLAGS_P="" LIBS_P=""
    case $p in
    lua)
        d=$(dir_of 'lua-5.4*')/src
        FILES=$(ls "$d"/*.c | grep -v '/luac\.c$')
        CFLAGS_P="-DLUA_USE_LINUX" LIBS_P="-lm -ldl" ;;
    bzip2)
        d=$(dir_of 'bzip2-*')
        FILES=$(printf "$d/%s.c " bzip2 blocksort huffman crctable randtable compress decompress bzlib)
        CFLAGS_P="-D_FILE_OFFSET_BITS=64" ;;
    minigzip)
        d=$(dir_of 'zlib-*')
        FILES="$(printf "$d/%s.c " adler32 compress crc32 deflate gzclose gzlib gzread gzwrite \
            infback inffast inflate inftrees trees uncompr zutil) $d/test/minigzip.c"
        CFLAGS_P="-I$d -D_LARGEFILE64_SOURCE=1" ;;
    xmlwf)
        d=$(dir_of 'libexpat-*')/expat
        printf '%s\n' '#define XML_NS 1' '#define XML_DTD 1' '#define XML_GE 1' \
            '#define XML_CONTEXT_BYTES 1024' '#define BYTEORDER 1234' '#define HAVE_GETRANDOM 1' \
            '#define HAVE_UNISTD_H 1' '#define HAVE_MMAP 1' '#define XML_DEV_URANDOM 1' \
            >"$b/expat_config.h"
        FILES="$d/lib/xmlparse.c $d/lib/xmlrole.c $d/lib/xmltok.c $d/xmlwf/xmlwf.c \
            $d/xmlwf/xmlfile.c $d/xmlwf/codepage.c $d/xmlwf/unixfilemap.c"
        CFLAGS_P="-I$b -I$d/lib -DHAVE_EXPAT_CONFIG_H" ;;
    yaml)
        d=$(dir_of 'libyaml-*')
        FILES="$(ls "$d"/src/*.c) $d/tests/run-parser-test-suite.c"
        CFLAGS_P="-I$d/include -DYAML_VERSION_MAJOR=0 -DYAML_VERSION_MINOR=2 \
            -DYAML_VERSION_PATCH=5 -DYAML_VERSION_STRING=\"0.2.5\"" ;;
    pcre2grep)
        d=$(dir_of 'pcre2-*')/src
        cp "$d/config.h.generic" "$b/config.h"
        cp "$d/pcre2.h.generic" "$b/pcre2.h"
        cp "$d/pcre2_chartables.c.dist" "$b/pcre2_chartables.c"
        FILES="$(printf "$d/pcre2_%s.c " auto_possess compile config context convert dfa_match \
            error extuni find_bracket maketables match match_data newline ord2utf pattern_info \
            script_run serialize string_utils study substitute substring tables ucd valid_utf \
            xclass) $b/pcre2_chartables.c $d/pcre2grep.c"
        CFLAGS_P="-I$b -I$d -DHAVE_CONFIG_H -DPCRE2_CODE_UNIT_WIDTH=8 -DSUPPORT_UNICODE \
            -DHAVE_UNISTD_H -DHAVE_DIRENT_H -DHAVE_SYS_STAT_H -DHAVE_SYS_TYPES_H -DHAVE_STRERROR \
            -DHAVE_MEMMOVE" ;;
    lz4)
        d=$(dir_of 'lz4-*')
        FILES="$(ls "$d"/lib/*.c) $(ls "$d"/programs/*.c)"
        CFLAGS_P="-I$d/lib" ;;
    zstd)
        d=$(dir_of 'zstd-*')
        FILES="$(ls "$d"/lib/common/*.c "$d"/lib/compress/*.c "$d"/lib/decompress/*.c \
            "$d"/lib/dictBuilder/*.c "$d"/programs/*.c)"
        CFLAGS_P="-I$d/lib -I$d/lib/common -DZSTD_DISABLE_ASM -DZSTD_LEGACY_SUPPORT=0 \
            -DBACKTRACE_ENABLE=0" LIBS_P="-lpthread" ;;
    cjson)
        d=$(dir_of 'cJSON-*')
        FILES="$d/cJSON.c $d/cJSON_Utils.c $d/test.c"
        CFLAGS_P="-I$d" LIBS_P="-lm" ;;
    sqlite3)
        sqlite_amalgamation || return 1
        FILES="$CORPUS/sqlite/sqlite3.c $CORPUS/sqlite/shell.c"
        CFLAGS_P="-I$CORPUS/sqlite -DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION" LIBS_P="-lm" ;;
    *) return 1 ;;
    esac
}

PROGRAMS="cjson bzip2 minigzip xmlwf yaml lz4 lua pcre2grep zstd sqlite3"

# compiler ISA CC: the command line for CC (gcc, clang) targeting ISA, or nothing if missing.
compiler() {
    local isa=$1 cc=$2 triple
    case $isa in
    x86_64) triple="" ;;
    aarch64) triple=aarch64-linux-gnu ;;
    arm) triple=arm-linux-gnueabihf ;;
    mips) triple=mips-linux-gnu ;;
    riscv64) triple=riscv64-linux-gnu ;;
    ppc64le) triple=powerpc64le-linux-gnu ;;
    esac
    if [ "$cc" = gcc ]; then
        command -v "${triple:+$triple-}gcc" >/dev/null && echo "${triple:+$triple-}gcc"
    else
        command -v clang >/dev/null || return 0
        [ -z "$triple" ] && { echo clang; return 0; }
        # clang reuses the cross gcc's libc and crt files; the headers it must be told (it looks
        # in the host's /usr/include, whose bits/ are the host's).
        command -v "$triple-gcc" >/dev/null && echo "clang --target=$triple -isystem /usr/$triple/include"
    fi
}

fetch
built=0
failed=()
# Programs outermost, smallest first: a partial run still covers the whole matrix.
for p in $PROGRAMS; do
    for isa in x86_64 aarch64 arm mips riscv64 ppc64le; do
        for cc in gcc clang; do
            ccl=$(compiler "$isa" "$cc")
            [ -n "$ccl" ] || continue
            for opt in O0 O2 O3; do
                name=$isa-$cc-$opt-$p
                want "$name" || continue
                [ -s "$BIN/$name" ] && continue
                b=$CORPUS/build/$name
                rm -rf "$b" && mkdir -p "$b"
                if ! recipe "$p" "$b"; then
                    failed+=("$name (no sources)")
                    continue
                fi
                # One compiler process per file list: -O level, no debug info, warnings off.
                # shellcheck disable=SC2086
                if (cd "$b" && nice $ccl -$opt -w $CFLAGS_P -o "$BIN/$name" $FILES $LIBS_P) \
                    >"$LOG/$name.log" 2>&1; then
                    built=$((built + 1))
                    echo "built $name" >&2
                else
                    rm -f "$BIN/$name"
                    failed+=("$name (see $LOG/$name.log)")
                fi
                rm -rf "$b"
            done
        done
    done
done
echo "built $built; corpus in $BIN"
if [ "${#failed[@]}" -gt 0 ]; then
    printf 'failed or skipped:\n'
    printf '  %s\n' "${failed[@]}"
fi
