/*
 * fuse 3's public configuration header as bench/diff.ts builds it: without versioned symbols
 * (meson's disable-libc-symbol-version), as they only mean something in the shared library.
 */
