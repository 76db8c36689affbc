"""Binary Ninja primitives over a BinaryView. Imported only after binaryninja loaded.
Untested here: no Binary Ninja on this machine."""
from binaryninja import Endianness, SectionSemantics, StringType, Symbol, SymbolType

from ..errors import RemcpError
from ..results import hex_addr

_KINDS = {SymbolType.FunctionSymbol: "function", SymbolType.ImportedFunctionSymbol: "function",
          SymbolType.DataSymbol: "object", SymbolType.ImportedDataSymbol: "object"}


def facts(bv):
    entry = bv.entry_point
    return {"format": bv.view_type, "arch": bv.arch.name if bv.arch else "unknown",
            "bits": bv.arch.address_size * 8 if bv.arch else bv.address_size * 8,
            "endian": "big" if bv.endianness == Endianness.BigEndian else "little",
            "entry": entry or None, "image_base": bv.start,
            "details": {"platform": str(bv.platform) if bv.platform else None}}


def segments(bv):
    return [{"name": f"seg_{s.start:x}", "start": s.start, "end": s.end,
             "file_offset": s.data_offset, "file_size": s.data_length,
             "perms": ("r" if s.readable else "-") + ("w" if s.writable else "-")
             + ("x" if s.executable else "-")} for s in bv.segments]


def sections(bv):
    kinds = {SectionSemantics.ReadOnlyCodeSectionSemantics: "code",
             SectionSemantics.ReadOnlyDataSectionSemantics: "rodata",
             SectionSemantics.ReadWriteDataSectionSemantics: "data"}
    out = []
    for s in sorted(bv.sections.values(), key=lambda s: s.start):
        seg = bv.get_segment_at(s.start)
        offset = seg.data_offset + (s.start - seg.start) if seg and seg.data_length else 0
        out.append({"name": s.name, "start": s.start, "end": s.end, "file_offset": offset,
                    "file_size": s.end - s.start if seg and seg.data_length else 0,
                    "perms": segments_perms(seg), "kind": kinds.get(s.semantics, "other")})
    return out


def segments_perms(seg):
    if seg is None:
        return "---"
    return ("r" if seg.readable else "-") + ("w" if seg.writable else "-") + \
        ("x" if seg.executable else "-")


def entries(bv):
    return [{"name": f.name, "address": f.start, "kind": "entry"} for f in bv.entry_functions]


def imports(bv):
    out = []
    for sym in bv.get_symbols_of_type(SymbolType.ImportedFunctionSymbol):
        out.append({"name": sym.name, "address": sym.address,
                    "library": str(sym.namespace) if sym.namespace else None})
    return out


def names(bv):
    return [(s.address, s.name, 0, _KINDS.get(s.type, "other"),
             "user" if s.auto is False else "analysis") for s in bv.get_symbols()]


def function_dict(f):
    blocks = list(f.basic_blocks)
    end = max((b.end for b in blocks), default=f.start + 1)
    flags = [n for n, on in (("thunk", f.is_thunk), ("noreturn", not f.can_return)) if on]
    return {"name": f.name, "start": f.start, "end": end, "blocks": len(blocks), "flags": flags,
            "chunks": [(r.start, r.end) for r in f.address_ranges],
            "comment": f.comment or None}


def strings(bv):
    out = []
    for s in bv.strings:
        section = next(iter(bv.get_sections_at(s.start)), None)
        out.append({"address": s.start, "length": s.length,
                    "encoding": "ascii" if s.type == StringType.AsciiString else "utf16",
                    "section": section.name if section else None, "text": s.value})
    return out


def read(bv, address, size):
    if not bv.is_valid_offset(address):
        raise RemcpError("InvalidAddress", f"{hex_addr(address)} is not mapped: see "
                         f"list_segments", {"address": hex_addr(address)})
    return bv.read(address, size)


def instructions(bv, address, count):
    out = []
    ea = address
    while len(out) < count and bv.is_valid_offset(ea):
        data = bv.read(ea, bv.arch.max_instr_length)
        info = bv.arch.get_instruction_text(data, ea)
        if not info or not info[1]:
            break
        tokens, length = info
        text = "".join(t.text for t in tokens).strip()
        mnemonic, _, operands = text.partition(" ")
        item = {"address": ea, "bytes": data[:length], "mnemonic": mnemonic,
                "operands": operands.strip()}
        comment = bv.get_comment_at(ea)
        if comment:
            item["comment"] = comment
        out.append(item)
        ea += length
    if not out:
        raise RemcpError("InvalidAddress", f"No instruction decodes at {hex_addr(address)}",
                         {"address": hex_addr(address)})
    return out


def decompile(bv, start):
    f = bv.get_function_at(start)
    hlil = f.hlil if f is not None else None
    if hlil is None:
        raise RemcpError("Internal", f"Binary Ninja produced no HLIL for {hex_addr(start)}",
                         {"address": hex_addr(start)})
    return "\n".join(str(line) for line in hlil.root.lines)


def xrefs(bv, address, direction):
    out = []
    if direction == "to":
        for ref in bv.get_code_refs(address):
            item = {"from": ref.address, "to": address, "type": "call"
                    if _is_call(bv, ref.address) else "jump"}
            if ref.function is not None:
                item["function"] = ref.function.name
            out.append(item)
        for src in bv.get_data_refs(address):
            out.append({"from": src, "to": address, "type": "offset"})
    else:
        f = bv.get_function_at(address)
        sources = [address] if f is None else [a for b in f.basic_blocks
                                               for a in range(b.start, b.end)]
        for src in sources:
            for ref in bv.get_code_refs_from(src):
                out.append({"from": src, "to": ref, "type": "call" if _is_call(bv, src)
                            else "jump"})
            for ref in bv.get_data_refs_from(src):
                out.append({"from": src, "to": ref, "type": "offset"})
    return out


def _is_call(bv, address):
    data = bv.read(address, bv.arch.max_instr_length)
    info = bv.arch.get_instruction_info(data, address)
    return info is not None and any("Call" in str(b.type) for b in info.branches)


def set_name(bv, address, name):
    f = bv.get_function_at(address)
    sym = bv.get_symbol_at(address)
    old = f.name if f is not None else (sym.name if sym else None)
    if f is not None:
        f.name = name or ""
    elif name is None:
        if sym is not None:
            bv.undefine_user_symbol(sym)
    else:
        bv.define_user_symbol(Symbol(SymbolType.DataSymbol, address, name))
    return old


def set_comment(bv, address, text):
    old = bv.get_comment_at(address) or None
    bv.set_comment_at(address, text or "")
    return old
