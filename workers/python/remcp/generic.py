"""Catalog tools built once from a few engine primitives, so each engine adapter stays thin:
an adapter implements the primitives its engine has (plain Python data, addresses as ints) and
this module does the paging, filtering, address parsing, formatting and error messages the
catalog promises. The test backend runs these handlers through the real supervisor."""
import bisect
import hashlib
import os

from .backend import Backend
from .errors import RemcpError
from .results import hex_addr, page_of, paginate

#: Tool → the primitive it needs; a tool is served only when the adapter implements it.
TOOL_PRIMITIVES = {
    "get_database_info": "facts",
    "list_segments": "segment_list",
    "list_sections": "section_list",
    "list_entry_points": "entry_list",
    "resolve_address": "segment_list",
    "list_imports": "import_list",
    "list_exports": "export_list",
    "list_names": "name_list",
    "list_functions": "function_list",
    "get_function": "function_containing",
    "list_strings": "string_list",
    "read_bytes": "read",
    "disassemble": "instructions",
    "decompile_function": "decompile",
    "xrefs_to": "xref_list",
    "xrefs_from": "xref_list",
    "rename": "set_name",
    "set_comment": "set_comment",
}

_CODE_XREFS = ("call", "jump")


class Engine(Backend):
    """A backend whose catalog tools come from primitives. Subclasses override what they have."""

    # Primitives (override in adapters).

    def facts(self):
        """``{format, arch, bits, endian, entry, image_base, details}`` (entry/image_base ints)."""
        raise NotImplementedError

    def segment_list(self):
        """``[{name, start, end, file_offset, file_size, perms}]`` in address order."""
        raise NotImplementedError

    def section_list(self):
        """Like segment_list, plus ``kind`` (code, data, rodata, bss, other)."""
        raise NotImplementedError

    def entry_list(self):
        """``[{name, address, kind}]``."""
        raise NotImplementedError

    def import_list(self):
        """``[{name, library?, ordinal?, address, slot?}]``."""
        raise NotImplementedError

    def export_list(self):
        """``[{name, address, ordinal?, forwarder?}]``."""
        raise NotImplementedError

    def name_list(self):
        """``[(address, name, size, kind, source)]``; kind is function, object or other."""
        raise NotImplementedError

    def function_list(self):
        """``[{name, start, end, blocks, flags}]``; blocks may be a callable (counted lazily)."""
        raise NotImplementedError

    def function_containing(self, address):
        """``{name, start, end, blocks, flags, chunks?, prototype?, comment?}`` or None."""
        raise NotImplementedError

    def string_list(self):
        """``[{address, length, encoding, section?, text}]``."""
        raise NotImplementedError

    def read(self, address, size):
        """Bytes at ``address`` (fewer at the end of the mapped range); unmapped raises."""
        raise NotImplementedError

    def instructions(self, address, count):
        """``[{address, bytes, mnemonic, operands, target?, comment?}]`` (bytes as bytes)."""
        raise NotImplementedError

    def decompile(self, start):
        """``(engine_name, code)`` for the function at ``start``."""
        raise NotImplementedError

    def xref_list(self, address, direction):
        """``[{from, to, type, function?, instruction?}]``; direction is "to" or "from"."""
        raise NotImplementedError

    def set_name(self, address, name):
        """Sets (name) or clears (None) a user name; returns the old name or None."""
        raise NotImplementedError

    def set_comment(self, address, text):
        """Sets (text) or clears (None) a comment; returns the old one or None."""
        raise NotImplementedError

    # Shared machinery.

    def handlers(self):
        table = {}
        for tool, primitive in TOOL_PRIMITIVES.items():
            if getattr(type(self), primitive) is not getattr(Engine, primitive):
                table[tool] = getattr(self, "_tool_" + tool)
        return table

    def _names_index(self):
        index = getattr(self, "_name_index", None)
        if index is None:
            index = {}
            for address, name, *_ in self.name_list():
                index.setdefault(name, address)
            if getattr(type(self), "section_list") is not getattr(Engine, "section_list"):
                for s in self.section_list():
                    index.setdefault(s["name"], s["start"])
            self._name_index = index
        return index

    def forget_names(self):
        """Drops cached name lookups (after a rename)."""
        self._name_index = None
        self._sorted_names = None

    def lookup(self, name):
        return self._names_index().get(name)

    def names(self):
        return self._names_index().keys()

    def _sha256(self):
        digest = getattr(self, "_digest", None)
        if digest is None:
            h = hashlib.sha256()
            with open(self.path, "rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    h.update(chunk)
            digest = self._digest = h.hexdigest()
        return digest

    def _segment_at(self, address):
        for s in self.segment_list():
            if s["start"] <= address < s["end"]:
                return s
        return None

    def _nearest_name(self, address):
        names = getattr(self, "_sorted_names", None)
        if names is None:
            names = self._sorted_names = sorted((a, n) for a, n, *_ in self.name_list())
        i = bisect.bisect_right(names, (address, "\uffff")) - 1
        return names[i] if i >= 0 else None

    def _function(self, args_address):
        address = self.address(args_address)
        fn = self.function_containing(address)
        if fn is None:
            raise RemcpError("NotFound", f"No function contains {hex_addr(address)}: check it "
                             f"with resolve_address, or list_functions to pick one",
                             {"address": hex_addr(address)})
        return address, fn

    # Tool handlers.

    def _tool_get_database_info(self, args, ctx):
        f = self.facts()
        out = {
            "path": self.path, "name": os.path.basename(self.path), "backend": self.name,
            "format": f["format"], "arch": f["arch"], "bits": f["bits"], "endian": f["endian"],
            "image_base": hex_addr(f["image_base"]), "size": os.path.getsize(self.path),
            "sha256": self._sha256(), "analysis": {"state": "ready"},
            "details": f.get("details") or {},
        }
        if f.get("entry") is not None:
            out["entry"] = hex_addr(f["entry"])
        if getattr(type(self), "function_list") is not getattr(Engine, "function_list"):
            out["analysis"]["functions"] = len(self.function_list())
        return out

    @staticmethod
    def _layout(s):
        out = {"name": s["name"], "start": hex_addr(s["start"]), "end": hex_addr(s["end"]),
               "size": s["end"] - s["start"], "file_offset": hex_addr(s.get("file_offset") or 0),
               "file_size": s.get("file_size") or 0, "perms": s.get("perms") or "---"}
        if "kind" in s:
            out["kind"] = s["kind"]
        return out

    def _tool_list_segments(self, args, ctx):
        return page_of(self.segment_list(), args, self._layout)

    def _tool_list_sections(self, args, ctx):
        return paginate(self.section_list(), args, lambda s: s["name"],
                        lambda s: self._layout({"kind": "other", **s}))

    def _tool_list_entry_points(self, args, ctx):
        return page_of(self.entry_list(), args, lambda e: {
            "name": e["name"], "address": hex_addr(e["address"]), "kind": e["kind"]})

    def _tool_list_imports(self, args, ctx):
        def fmt(i):
            out = {"name": i["name"], "address": hex_addr(i["address"])}
            for key in ("library", "ordinal", "delay_load"):
                if i.get(key) is not None:
                    out[key] = i[key]
            if i.get("slot") is not None:
                out["slot"] = hex_addr(i["slot"])
            return out
        return paginate(self.import_list(), args,
                        lambda i: f"{i.get('library') or ''}!{i['name']}", fmt)

    def _tool_list_exports(self, args, ctx):
        def fmt(e):
            out = {"name": e["name"], "address": hex_addr(e["address"])}
            for key in ("ordinal", "forwarder"):
                if e.get(key) is not None:
                    out[key] = e[key]
            return out
        return paginate(self.export_list(), args, lambda e: e["name"], fmt)

    def _tool_list_names(self, args, ctx):
        kind = args.get("kind") or "any"
        items = sorted(n for n in self.name_list() if kind == "any" or n[3] == kind)
        return paginate(items, args, lambda n: n[1], lambda n: {
            "name": n[1], "address": hex_addr(n[0]), "size": n[2], "kind": n[3],
            "source": n[4]})

    @staticmethod
    def _function_item(fn):
        blocks = fn.get("blocks", 0)
        if callable(blocks):  # Counting blocks costs engine work: only for returned items.
            blocks = blocks()
        return {"name": fn["name"], "start": hex_addr(fn["start"]), "end": hex_addr(fn["end"]),
                "size": fn["end"] - fn["start"], "blocks": blocks,
                "flags": list(fn.get("flags") or [])}

    def _tool_list_functions(self, args, ctx):
        fns = self.function_list()
        if args.get("sort") == "size":
            fns = sorted(fns, key=lambda f: (-(f["end"] - f["start"]), f["start"]))
        else:
            fns = sorted(fns, key=lambda f: f["start"])
        return paginate(fns, args, lambda f: f["name"], self._function_item)

    def _tool_get_function(self, args, ctx):
        _, fn = self._function(args["address"])
        out = self._function_item(fn)
        out["chunks"] = [{"start": hex_addr(s), "end": hex_addr(e)}
                         for s, e in fn.get("chunks") or [(fn["start"], fn["end"])]]
        for key in ("prototype", "comment"):
            if fn.get(key):
                out[key] = fn[key]
        return out

    def _tool_list_strings(self, args, ctx):
        min_length = args.get("min_length") or 4
        section = args.get("section")
        encoding = args.get("encoding") or "any"
        kept = [s for s in self.string_list()
                if s["length"] >= min_length
                and (section is None or s.get("section") == section)
                and (encoding == "any" or s["encoding"] == encoding)]

        def fmt(s):
            out = {"address": hex_addr(s["address"]), "length": s["length"],
                   "encoding": s["encoding"], "text": s["text"]}
            if s.get("section"):
                out["section"] = s["section"]
            return out
        return paginate(kept, args, lambda s: s["text"], fmt)

    def _tool_read_bytes(self, args, ctx):
        address = self.address(args["address"])
        data = bytes(self.read(address, args["size"]))
        out = {"address": hex_addr(address), "size": len(data), "hex": data.hex()}
        if len(data) < args["size"]:
            out["warnings"] = [{"code": "cut", "message": f"Only {len(data)} of {args['size']} "
                                f"bytes are mapped from {hex_addr(address)}"}]
        return out

    def _tool_resolve_address(self, args, ctx):
        address = self.address(args["address"])
        seg = self._segment_at(address)
        out = {"address": hex_addr(address), "mapped": seg is not None}
        if seg is not None:
            out["segment"] = seg["name"]
            delta = address - seg["start"]
            if seg.get("file_offset") is not None and delta < (seg.get("file_size") or 0):
                out["file_offset"] = hex_addr(seg["file_offset"] + delta)
        if getattr(type(self), "section_list") is not getattr(Engine, "section_list"):
            for s in self.section_list():
                if s["start"] <= address < s["end"]:
                    out["section"] = s["name"]
                    break
        near = self._nearest_name(address)
        if near is not None and (seg is None or near[0] >= seg["start"]):
            out["symbol"], out["symbol_offset"] = near[1], address - near[0]
        if getattr(type(self), "function_containing") is not getattr(Engine,
                                                                     "function_containing"):
            fn = self.function_containing(address)
            if fn is not None:
                out["function"], out["function_start"] = fn["name"], hex_addr(fn["start"])
        return out

    def _tool_disassemble(self, args, ctx):
        address = self.address(args["address"])
        insns = self.instructions(address, args.get("count") or 50)
        items = []
        for insn in insns:
            item = {"address": hex_addr(insn["address"]), "bytes": bytes(insn["bytes"]).hex(),
                    "mnemonic": insn["mnemonic"], "operands": insn["operands"]}
            for key in ("target", "ref"):
                if insn.get(key) is not None:
                    item[key] = hex_addr(insn[key])
            for key in ("target_name", "ref_name", "comment"):
                if insn.get(key):
                    item[key] = insn[key]
            items.append(item)
        out = {"address": hex_addr(address), "items": items}
        if insns:
            last = insns[-1]
            out["next_address"] = hex_addr(last["address"] + len(last["bytes"]))
        return out

    def _tool_decompile_function(self, args, ctx):
        _, fn = self._function(args["address"])
        engine, code = self.decompile(fn["start"])
        return {"name": fn["name"], "start": hex_addr(fn["start"]), "engine": engine,
                "code": code}

    def _xrefs(self, args, direction):
        address = self.address(args["address"])
        want = args.get("type") or "any"
        refs = [r for r in self.xref_list(address, direction)
                if want == "any" or (r["type"] in _CODE_XREFS) == (want == "code")]

        def fmt(r):
            out = {"from": hex_addr(r["from"]), "to": hex_addr(r["to"]), "type": r["type"]}
            for key in ("function", "to_name", "instruction"):
                if r.get(key):
                    out[key] = r[key]
            return out
        return page_of(refs, args, fmt)

    def _tool_xrefs_to(self, args, ctx):
        return self._xrefs(args, "to")

    def _tool_xrefs_from(self, args, ctx):
        return self._xrefs(args, "from")

    def _tool_rename(self, args, ctx):
        address = self.address(args["address"])
        new = args["name"] or None
        old = self.set_name(address, new)
        self.forget_names()
        return {"address": hex_addr(address), "old_name": old, "new_name": new}

    def _tool_set_comment(self, args, ctx):
        address = self.address(args["address"])
        new = args["comment"] or None
        old = self.set_comment(address, new)
        return {"address": hex_addr(address), "old_comment": old, "new_comment": new}


class ApiEngine(Engine):
    """An engine whose primitives forward to ``self.api``, the adapter's module of engine calls
    (which holds the engine imports). Adapters override only what differs."""

    decompiler = "engine"

    def facts(self):
        return self.api.facts()

    def segment_list(self):
        return self.api.segments()

    def section_list(self):
        return self.api.segments()

    def entry_list(self):
        return self.api.entries()

    def import_list(self):
        return self.api.imports()

    def export_list(self):
        return self.api.exports()

    def name_list(self):
        return self.api.names()

    def function_list(self):
        return self.api.functions()

    def function_containing(self, address):
        return self.api.function_containing(address)

    def string_list(self):
        return self.api.strings()

    def read(self, address, size):
        return self.api.read(address, size)

    def instructions(self, address, count):
        return self.api.instructions(address, count)

    def decompile(self, start):
        return self.decompiler, self.api.decompile(start)

    def xref_list(self, address, direction):
        return self.api.xrefs(address, direction)

    def set_name(self, address, name):
        return self.api.set_name(address, name)

    def set_comment(self, address, text):
        return self.api.set_comment(address, text)
