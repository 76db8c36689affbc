"""IDA primitives over IDAPython's ida_* modules. Imported only after ``import idapro``.
Untested here: no IDA on this machine."""
import ida_auto
import ida_bytes
import ida_funcs
import ida_gdl
import ida_ida
import ida_idaapi
import ida_kernwin
import ida_lines
import ida_loader
import ida_name
import ida_nalt
import ida_segment
import ida_ua
import ida_xref
import idautils

from ..errors import RemcpError
from ..results import hex_addr

_CALLS = (ida_xref.fl_CF, ida_xref.fl_CN)
_JUMPS = (ida_xref.fl_JF, ida_xref.fl_JN)
_DATA = {ida_xref.dr_R: "read", ida_xref.dr_W: "write", ida_xref.dr_O: "offset"}


def auto_wait():
    ida_auto.auto_wait()


def request_cancel():
    # Long idalib operations poll user_cancelled(); set_cancelled is absent on some versions.
    cancel = getattr(ida_kernwin, "set_cancelled", None)
    if cancel is not None:
        cancel()


def save(path):
    ida_loader.save_database(path, 0)


def facts():
    bits = 64 if ida_ida.inf_is_64bit() else 32 if ida_ida.inf_is_32bit_exactly() else 16
    entry = ida_ida.inf_get_start_ea()
    return {"format": ida_loader.get_file_type_name(), "arch": ida_ida.inf_get_procname(),
            "bits": bits, "endian": "big" if ida_ida.inf_is_be() else "little",
            "entry": entry if entry != ida_idaapi.BADADDR else None,
            "image_base": ida_nalt.get_imagebase(), "details": {}}


def segments():
    out = []
    for n in range(ida_segment.get_segm_qty()):
        s = ida_segment.getnseg(n)
        perm = s.perm
        offset = ida_loader.get_fileregion_offset(s.start_ea)
        cls = (ida_segment.get_segm_class(s) or "").upper()
        out.append({"name": ida_segment.get_segm_name(s), "start": s.start_ea, "end": s.end_ea,
                    "file_offset": max(offset, 0),
                    "file_size": s.end_ea - s.start_ea if offset >= 0 else 0,
                    "perms": ("r" if perm & ida_segment.SEGPERM_READ else "-")
                    + ("w" if perm & ida_segment.SEGPERM_WRITE else "-")
                    + ("x" if perm & ida_segment.SEGPERM_EXEC else "-"),
                    "kind": {"CODE": "code", "DATA": "data", "BSS": "bss",
                             "CONST": "rodata"}.get(cls, "other")})
    return out


def entries():
    return [{"name": name or hex_addr(ea), "address": ea,
             "kind": "entry" if ordinal == ea else "export"}
            for _i, ordinal, ea, name in idautils.Entries()]


def exports():
    return [{"name": name or hex_addr(ea), "address": ea,
             **({"ordinal": ordinal} if ordinal != ea else {})}
            for _i, ordinal, ea, name in idautils.Entries()]


def imports():
    out = []
    for i in range(ida_nalt.get_import_module_qty()):
        library = ida_nalt.get_import_module_name(i)

        def collect(ea, name, ordinal, library=library):
            item = {"name": name or f"ord{ordinal}", "library": library, "address": ea,
                    "slot": ea}
            if ordinal:
                item["ordinal"] = ordinal
            out.append(item)
            return True
        ida_nalt.enum_import_names(i, collect)
    return out


def names():
    out = []
    for ea, name in idautils.Names():
        f = ida_funcs.get_func(ea)
        flags = ida_bytes.get_flags(ea)
        kind = "function" if f is not None and f.start_ea == ea else (
            "object" if ida_bytes.is_data(flags) else "other")
        out.append((ea, name, ida_bytes.get_item_size(ea), kind,
                    "user" if ida_bytes.has_user_name(flags) else "analysis"))
    return out


def _function(f):
    flags = [n for n, bit in (("thunk", ida_funcs.FUNC_THUNK), ("noreturn", ida_funcs.FUNC_NORET),
                              ("library", ida_funcs.FUNC_LIB)) if f.flags & bit]
    if ida_bytes.has_user_name(ida_bytes.get_flags(f.start_ea)):
        flags.append("user_named")
    comment = ida_funcs.get_func_cmt(f, False)
    return {"name": ida_funcs.get_func_name(f.start_ea), "start": f.start_ea, "end": f.end_ea,
            "blocks": lambda: ida_gdl.FlowChart(f).size, "flags": flags,
            "chunks": list(idautils.Chunks(f.start_ea)),
            "comment": comment or None}


def functions():
    return [_function(ida_funcs.get_func(ea)) for ea in idautils.Functions()]


def function_containing(address):
    f = ida_funcs.get_func(address)
    return _function(f) if f is not None else None


def strings():
    out = []
    for s in idautils.Strings():
        seg = ida_segment.getseg(s.ea)
        out.append({"address": s.ea, "length": s.length,
                    "encoding": "utf16" if s.strtype & 0xFF == ida_nalt.STRTYPE_C_16 else "ascii",
                    "section": ida_segment.get_segm_name(seg) if seg else None,
                    "text": str(s)})
    return out


def read(address, size):
    if not ida_bytes.is_mapped(address):
        raise RemcpError("InvalidAddress", f"{hex_addr(address)} is not mapped: see "
                         f"list_segments", {"address": hex_addr(address)})
    seg = ida_segment.getseg(address)
    size = min(size, seg.end_ea - address) if seg else size
    return ida_bytes.get_bytes(address, size) or b""


def instructions(address, count):
    out = []
    ea = address
    while len(out) < count:
        insn = ida_ua.insn_t()
        length = ida_ua.decode_insn(insn, ea)
        if length <= 0:
            if not out:
                raise RemcpError("InvalidAddress", f"No instruction decodes at {hex_addr(ea)}",
                                 {"address": hex_addr(ea)})
            break
        text = ida_lines.generate_disasm_line(ea, ida_lines.GENDSM_REMOVE_TAGS) or ""
        mnemonic = ida_ua.print_insn_mnem(ea)
        operands = text.split(";", 1)[0][len(mnemonic):].strip() if text.startswith(
            mnemonic) else text.split(";", 1)[0].strip()
        item = {"address": ea, "bytes": ida_bytes.get_bytes(ea, length), "mnemonic": mnemonic,
                "operands": operands}
        target = next(iter(idautils.CodeRefsFrom(ea, False)), None)
        if target is not None:
            item["target"] = target
            item["target_name"] = ida_name.get_name(target)
        comment = ida_bytes.get_cmt(ea, False)
        if comment:
            item["comment"] = comment
        out.append(item)
        ea += length
    return out


def decompile(start):
    try:
        import ida_hexrays
    except ImportError:
        ida_hexrays = None
    if ida_hexrays is None or not ida_hexrays.init_hexrays_plugin():
        raise RemcpError("Unsupported", "The Hex-Rays decompiler is not available for this "
                         "processor or license: use disassemble_function instead", {})
    try:
        cfunc = ida_hexrays.decompile(start)
    except ida_hexrays.DecompilationFailure as err:
        raise RemcpError("Internal", f"Hex-Rays failed on {hex_addr(start)}: {err}",
                         {"address": hex_addr(start)}) from None
    return "\n".join(ida_lines.tag_remove(line.line) for line in cfunc.get_pseudocode())


def xrefs(address, direction):
    refs = idautils.XrefsTo(address) if direction == "to" else (
        x for ea in _heads_of(address) for x in idautils.XrefsFrom(ea))
    out = []
    for x in refs:
        if direction == "from" and x.type == ida_xref.fl_F:
            continue  # Ordinary flow to the next instruction is not a reference.
        kind = "call" if x.type in _CALLS else "jump" if x.type in _JUMPS else \
            _DATA.get(x.type, "offset")
        f = ida_funcs.get_func(x.frm)
        item = {"from": x.frm, "to": x.to, "type": kind}
        if f is not None:
            item["function"] = ida_funcs.get_func_name(f.start_ea)
        if ida_bytes.is_code(ida_bytes.get_flags(x.frm)):
            item["instruction"] = ida_lines.generate_disasm_line(
                x.frm, ida_lines.GENDSM_REMOVE_TAGS)
        out.append(item)
    return out


def _heads_of(address):
    f = ida_funcs.get_func(address)
    if f is not None and f.start_ea == address:
        return list(idautils.FuncItems(address))
    return [address]


def set_name(address, name):
    old = ida_name.get_name(address) or None
    if not ida_name.set_name(address, name or "", ida_name.SN_NOWARN):
        raise RemcpError("InvalidArgument", f'IDA refused the name "{name}" at '
                         f"{hex_addr(address)} (invalid or already used)",
                         {"param": "name"})
    return old


def set_comment(address, text):
    old = ida_bytes.get_cmt(address, False) or None
    ida_bytes.set_cmt(address, text or "", False)
    return old
