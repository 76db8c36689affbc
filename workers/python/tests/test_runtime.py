"""Unit tests of the engine-independent runtime (run by tests/python_worker_test.ts with
REMCP_TEST_CATALOG pointing at a freshly generated catalog)."""
import json
import os
import re
import unittest

from remcp.address import parse_address
from remcp.errors import ERROR_CODES, RemcpError
from remcp.results import compact, fit_to_cap, paginate
from remcp.schema import check_arguments

CATALOG = os.environ.get("REMCP_TEST_CATALOG")
KNOWN_KEYWORDS = {
    "$schema", "type", "properties", "required", "additionalProperties", "anyOf", "oneOf",
    "enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength",
    "maxLength", "pattern", "items", "minItems", "maxItems", "propertyNames", "description",
    "$ref", "$defs", "default", "format", "title",
}


def load_catalog():
    if not CATALOG:
        raise unittest.SkipTest("REMCP_TEST_CATALOG is not set")
    with open(CATALOG, encoding="utf-8") as f:
        return json.load(f)


class CatalogTest(unittest.TestCase):
    def test_error_codes_match_the_typescript_set(self):
        self.assertEqual(tuple(load_catalog()["error_codes"]), ERROR_CODES)

    def test_every_schema_keyword_is_one_the_checker_understands(self):
        def walk(node, where):
            if isinstance(node, dict):
                for key, value in node.items():
                    self.assertIn(key, KNOWN_KEYWORDS, f"{where}: {key}")
                    if key == "properties" or key == "$defs":
                        for name, sub in value.items():
                            walk(sub, f"{where}.{name}")
                    elif key not in ("enum", "const", "required", "default"):
                        walk(value, where)
            elif isinstance(node, list):
                for item in node:
                    walk(item, where)
        for tool in load_catalog()["tools"]:
            walk(tool["inputSchema"], tool["name"])
            walk(tool["outputSchema"], tool["name"] + " (output)")


READ = {
    "type": "object",
    "properties": {
        "address": {"anyOf": [{"type": "string", "minLength": 1},
                              {"type": "integer", "minimum": 0}]},
        "size": {"type": "integer", "minimum": 1, "maximum": 16},
        "kind": {"type": "string", "enum": ["a", "b"]},
    },
    "required": ["address", "size"],
    "additionalProperties": False,
}


class ArgumentsTest(unittest.TestCase):
    def error(self, args):
        with self.assertRaises(RemcpError) as cm:
            check_arguments("read", READ, args)
        self.assertEqual(cm.exception.code, "InvalidArgument")
        return cm.exception

    def test_valid_arguments_pass_with_nulls_dropped_and_integral_floats_as_ints(self):
        out = check_arguments("read", READ, {"address": 16, "size": 4.0, "kind": None})
        self.assertEqual(out, {"address": 16, "size": 4})
        self.assertIsInstance(out["size"], int)

    def test_missing_mistyped_undeclared_and_out_of_range(self):
        e = self.error({"size": 1})
        self.assertIn('missing the required parameter "address"', e.message)
        self.assertEqual(e.detail["accepted"], ["address", "size", "kind"])
        self.assertIn("expected integer, received string", self.error(
            {"address": 1, "size": "1"}).message)
        self.assertIn("expected integer or string, received boolean", self.error(
            {"address": True, "size": 1}).message)
        self.assertIn('has no parameter "x"', self.error({"address": 1, "size": 1, "x": 0}).message)
        self.assertIn("must be ≤ 16", self.error({"address": 1, "size": 17}).message)
        self.assertIn('one of "a", "b"', self.error({"address": 1, "size": 1, "kind": "c"}).message)
        self.assertIn("named arguments", self.error([1]).message)

    def test_no_arguments_means_an_empty_object(self):
        empty = {"type": "object", "properties": {}, "additionalProperties": False}
        self.assertEqual(check_arguments("t", empty, None), {})


class CapTest(unittest.TestCase):
    def test_pages_keep_the_longest_prefix_that_fits(self):
        page = {"items": [{"n": "x" * 50} for _ in range(100)], "total": 100, "offset": 10,
                "limit": 100, "has_more": False}
        out = fit_to_cap(page, 1024)
        self.assertLessEqual(len(compact(out).encode()), 1024)
        self.assertTrue(out["truncated"])
        self.assertEqual(out["next_offset"], 10 + len(out["items"]))
        self.assertGreater(len(out["items"]), 5)
        self.assertEqual(out["warnings"][-1]["code"], "truncated")

    def test_long_text_is_cut_at_a_line_end(self):
        code = "\n".join(f"line {i:04d}" for i in range(1000))
        out = fit_to_cap({"name": "f", "code": code}, 2048)
        self.assertLessEqual(len(compact(out).encode()), 2048)
        self.assertTrue(out["code"].endswith("\n"))
        self.assertTrue(code.startswith(out["code"]))

    def test_an_object_that_cannot_be_cut_is_output_too_large(self):
        with self.assertRaises(RemcpError) as cm:
            fit_to_cap({"values": list(range(5000))}, 1024)
        self.assertEqual(cm.exception.code, "OutputTooLarge")

    def test_non_ascii_counts_in_utf8_bytes(self):
        out = fit_to_cap({"items": ["é" * 100] * 50, "offset": 0}, 2048)
        self.assertLessEqual(len(compact(out).encode()), 2048)


class AddressTest(unittest.TestCase):
    NAMES = {"main": 0x1000, "add": 0x2000, ".text": 0x400}

    def parse(self, text):
        return parse_address(text, self.NAMES.get, lambda n: [k for k in self.NAMES if n in k])

    def test_the_order_of_forms(self):
        self.assertEqual(self.parse("0x10"), 16)
        self.assertEqual(self.parse("10"), 10)
        self.assertEqual(self.parse("add"), 0x2000)  # a name beats bare hex
        self.assertEqual(self.parse("main+0x10"), 0x1010)
        self.assertEqual(self.parse(".text + 4"), 0x404)
        self.assertEqual(self.parse("main-8"), 0xFF8)
        self.assertEqual(self.parse("cafe"), 0xCAFE)
        self.assertEqual(self.parse(7), 7)

    def test_unknown_names_suggest_near_ones(self):
        with self.assertRaises(RemcpError) as cm:
            self.parse("mai")
        self.assertEqual(cm.exception.code, "InvalidAddress")
        self.assertIn("did you mean main", cm.exception.message)
        with self.assertRaises(RemcpError):
            self.parse("0x" + "f" * 20)


class PagingTest(unittest.TestCase):
    def test_filter_then_page(self):
        page = paginate([f"n{i}" for i in range(30)], {"filter": "^N1", "limit": 4},
                        lambda s: s)
        self.assertEqual(page["total"], 11)
        self.assertEqual(page["items"], ["n1", "n10", "n11", "n12"])
        self.assertEqual(page["next_offset"], 4)

    def test_broken_or_backtracking_only_filters_are_refused(self):
        for bad, why in (("(", "valid"), ("x" * 501, "longer"), ("(a)\\1", "backreferences"),
                         ("a(?=b)", "lookaround"), ("(?<!a)b", "lookaround")):
            with self.assertRaises(RemcpError) as cm:
                paginate([], {"filter": bad}, str)
            self.assertEqual(cm.exception.code, "InvalidArgument")
            self.assertIn(why, cm.exception.message)

    def test_patterns_that_backtrack_for_ever_in_re_take_linear_time(self):
        # Each of these keeps Python's re busy for longer than the age of the universe.
        long = "a" * 50_000
        for pattern in ("(a|a)+$", "((a+))+$", "([\\w ]|[\\w ])+#", "(a+)+b", "(x+x+)+y"):
            page = paginate([long + "!", "x" * 50_000], {"filter": pattern}, lambda s: s)
            self.assertEqual(page["total"], 0, pattern)


class LinearPatternTest(unittest.TestCase):
    """The matcher agrees with re on the patterns both accept."""

    CASES = (
        "^N1", "a|b", "sym_0+1$", "\\bmain\\b", "\\Bain", "[a-c]{2,3}x", "colou?r", "^$", "x*",
        "\\d+\\.\\d", "[^a-z]", "a.c", "(?:ab)+c", "(?P<n>ab)c", "\\x41", "[\\w.]+@", "^(ab|a)*b$",
        "a{3}", "a{2,}", "[]a]", "[a-]", "\\s\\S", "fo*?o", "(?i)foo", "\\Afoo\\z", "[\\]\\\\]",
    )
    TEXTS = ("", "n12", "xn1", "zzb", "sym_0001", "call main now", "_main", "domain", "zzbcx",
             "COLOR", "v1.2", "abc", "ab1", "a\nc", "ababc", "A", "me.x@y", "abab", "aaab",
             "]", "-", "a b", "FOO", "foo", "x\\y", "aaaa")

    def test_agrees_with_re(self):
        from remcp.linear_re import LinearPattern
        for pattern in self.CASES:
            compiled = LinearPattern(pattern)
            ref = re.compile(pattern.replace("\\z", "\\Z"), re.IGNORECASE)
            for text in self.TEXTS:
                self.assertEqual(bool(compiled.search(text)), bool(ref.search(text)),
                                 f"{pattern!r} on {text!r}")


if __name__ == "__main__":
    unittest.main()


class IdaLoaderArgsTest(unittest.TestCase):
    """The engine-independent part of the IDA adapter: fat slices and raw processors."""
    FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "tests", "fixtures",
                            "bin")

    def test_fat_macho_needs_a_slice_and_maps_it_to_a_1_based_index(self):
        from remcp.engines.ida_engine import fat_slices, loader_args
        fat = os.path.join(self.FIXTURES, "macho_fat")
        self.assertEqual([s[0] for s in fat_slices(fat)], ["x86_64", "arm64"])
        with self.assertRaises(RemcpError) as cm:
            loader_args(fat, {})
        self.assertEqual(cm.exception.code, "AmbiguousFatBinary")
        self.assertEqual(cm.exception.detail["slices"], ["x86_64", "arm64"])
        self.assertEqual(loader_args(fat, {"arch": "arm64"}),
                         (['-T"Fat Mach-O file, 2"'], ".arm64"))
        self.assertIsNone(fat_slices(os.path.join(self.FIXTURES, "macho_arm64")))

    def test_bitness_ambiguous_raw_processors_are_refused_with_variants(self):
        from remcp.engines.ida_engine import loader_args
        raw = os.path.join(self.FIXTURES, "elf_arm_gcc_O2")  # not fat: the arch applies
        with self.assertRaises(RemcpError) as cm:
            loader_args(raw, {"arch": "arm"})
        self.assertEqual(cm.exception.detail["variants"], ["arm32", "thumb", "arm64"])
        self.assertEqual(loader_args(raw, {"arch": "arm64", "base": "0x10000"}),
                         (["-parm", "-b0x1000"], ""))
