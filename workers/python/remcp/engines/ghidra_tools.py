"""Ghidra primitives over FlatProgramAPI, DecompInterface and the program's managers. Imported
only after pyghidra started the JVM (the ``ghidra``/``java`` packages exist only then).
Untested here: no Ghidra on this machine."""
from ghidra.app.decompiler import DecompInterface
from ghidra.base.project import GhidraProject
from ghidra.program.flatapi import FlatProgramAPI
from ghidra.program.model.block import BasicBlockModel
from ghidra.program.model.listing import CodeUnit
from ghidra.program.model.symbol import SourceType, SymbolType
from ghidra.program.util import DefinedDataIterator
from ghidra.util.task import TaskMonitorAdapter
from java.io import File

from ..errors import RemcpError
from ..results import hex_addr

PROJECT = "remcp"


def open_program(folder, path):
    """Opens (or creates) the per-database project; returns (project, program, fresh)."""
    import os
    name = os.path.basename(path)
    if os.path.exists(os.path.join(folder, PROJECT + ".gpr")):
        project = GhidraProject.openProject(folder, PROJECT, True)
        try:
            return project, project.openProgram("/", name, False), False
        except Exception:  # The project exists but the import did not finish: redo it.
            pass
    else:
        project = GhidraProject.createProject(folder, PROJECT, False)
    program = project.importProgram(File(path))
    if program is None:
        project.close()
        raise RemcpError("OpenFailed", f"Ghidra has no loader for {path}: it is not a format "
                         f"Ghidra recognises", {"path": path})
    project.saveAs(program, "/", name, True)
    return project, program, True


def is_analysed(program):
    try:
        from ghidra.program.util import GhidraProgramUtilities
        return bool(GhidraProgramUtilities.isAnalyzed(program))
    except (ImportError, AttributeError):
        return bool(program.getOptions("Program Information").getBoolean("Analyzed", False))


def analyse(program, monitor):
    from ghidra.app.plugin.core.analysis import AutoAnalysisManager
    manager = AutoAnalysisManager.getAnalysisManager(program)
    tx = program.startTransaction("remcp auto-analysis")
    try:
        manager.initializeOptions()
        manager.reAnalyzeAll(None)
        manager.startAnalysis(monitor)
    finally:
        program.endTransaction(tx, True)


def _u8(java_bytes):
    return bytes(b & 0xFF for b in java_bytes)


class Api:
    """The open program and the helpers every primitive shares."""

    def __init__(self, program):
        self.program = program
        self.monitor = TaskMonitorAdapter(True)
        self.flat = FlatProgramAPI(program, self.monitor)
        self.listing = program.getListing()
        self.symbols = program.getSymbolTable()
        self.functions_ = program.getFunctionManager()
        self.refs = program.getReferenceManager()
        self.memory = program.getMemory()
        self._decompiler = None

    def dispose(self):
        if self._decompiler is not None:
            self._decompiler.dispose()

    def addr(self, value):
        return self.flat.toAddr(value)

    def _mutate(self, what, fn):
        tx = self.program.startTransaction(what)
        ok = False
        try:
            result = fn()
            ok = True
            return result
        finally:
            self.program.endTransaction(tx, ok)

    def facts(self):
        lang = self.program.getLanguage()
        entries = self.entries()
        return {
            "format": str(self.program.getExecutableFormat()),
            "arch": str(lang.getProcessor()),
            "bits": int(lang.getLanguageDescription().getSize()),
            "endian": "big" if lang.isBigEndian() else "little",
            "entry": entries[0]["address"] if entries else None,
            "image_base": int(self.program.getImageBase().getOffset()),
            "details": {"language": str(lang.getLanguageID()),
                        "compiler": str(self.program.getCompilerSpec().getCompilerSpecID())},
        }

    def blocks(self):
        out = []
        for b in self.memory.getBlocks():
            start = int(b.getStart().getOffset())
            end = int(b.getEnd().getOffset()) + 1
            info = self.memory.getAddressSourceInfo(b.getStart())
            offset = int(info.getFileOffset()) if info is not None else -1
            perms = ("r" if b.isRead() else "-") + ("w" if b.isWrite() else "-") + \
                ("x" if b.isExecute() else "-")
            kind = "code" if b.isExecute() else ("bss" if not b.isInitialized() else
                                                 "data" if b.isWrite() else "rodata")
            out.append({"name": str(b.getName()), "start": start, "end": end,
                        "file_offset": max(offset, 0),
                        "file_size": end - start if offset >= 0 else 0, "perms": perms,
                        "kind": kind})
        return out

    def entries(self):
        out = []
        for a in self.symbols.getExternalEntryPointIterator():
            sym = self.symbols.getPrimarySymbol(a)
            out.append({"name": str(sym.getName()) if sym else hex_addr(a.getOffset()),
                        "address": int(a.getOffset()), "kind": "entry"})
        return out

    def exports(self):
        return [{"name": e["name"], "address": e["address"]} for e in self.entries()]

    def imports(self):
        out = []
        for f in self.functions_.getExternalFunctions():
            loc = f.getExternalLocation()
            thunks = f.getFunctionThunkAddresses(True) or []
            slots = [r.getFromAddress() for r in self.refs.getReferencesTo(f.getEntryPoint())
                     if r.getReferenceType().isData()]
            address = thunks[0] if thunks else (slots[0] if slots else None)
            if address is None:
                continue
            item = {"name": str(f.getName()), "library": str(loc.getLibraryName()),
                    "address": int(address.getOffset())}
            if slots:
                item["slot"] = int(slots[0].getOffset())
            out.append(item)
        return out

    def names(self):
        out = []
        for s in self.symbols.getAllSymbols(True):
            if s.isExternal():
                continue
            t = s.getSymbolType()
            kind = "function" if t == SymbolType.FUNCTION else (
                "object" if self.listing.getDefinedDataAt(s.getAddress()) else "other")
            source = {SourceType.USER_DEFINED: "user", SourceType.IMPORTED: "file"}.get(
                s.getSource(), "analysis")
            unit = self.listing.getCodeUnitAt(s.getAddress())
            out.append((int(s.getAddress().getOffset()), str(s.getName()),
                        int(unit.getLength()) if unit else 0, kind, source))
        return out

    def _function_dict(self, f):
        body = f.getBody()
        flags = [flag for flag, on in (("thunk", f.isThunk()), ("noreturn", f.hasNoReturn()),
                                       ("user_named",
                                        f.getSymbol().getSource() == SourceType.USER_DEFINED))
                 if on]
        return {"name": str(f.getName()), "start": int(f.getEntryPoint().getOffset()),
                "end": int(body.getMaxAddress().getOffset()) + 1,
                "blocks": lambda: self._block_count(body), "flags": flags,
                "chunks": [(int(r.getMinAddress().getOffset()),
                            int(r.getMaxAddress().getOffset()) + 1)
                           for r in body.getAddressRanges()],
                "prototype": str(f.getPrototypeString(False, False)),
                "comment": str(f.getComment()) if f.getComment() else None}

    def _block_count(self, body):
        blocks = BasicBlockModel(self.program).getCodeBlocksContaining(body, self.monitor)
        count = 0
        while blocks.hasNext():
            blocks.next()
            count += 1
        return count

    def functions(self):
        return [self._function_dict(f) for f in self.functions_.getFunctions(True)]

    def function_containing(self, address):
        f = self.functions_.getFunctionContaining(self.addr(address))
        return self._function_dict(f) if f is not None else None

    def strings(self):
        out = []
        for d in DefinedDataIterator.definedStrings(self.program):
            value = d.getValue()
            text = str(value) if value is not None else ""
            block = self.memory.getBlock(d.getAddress())
            out.append({"address": int(d.getAddress().getOffset()), "length": len(text),
                        "encoding": "utf16" if "unicode" in str(d.getDataType().getName())
                        .lower() else "ascii",
                        "section": str(block.getName()) if block else None, "text": text})
        return out

    def read(self, address, size):
        a = self.addr(address)
        if not self.memory.contains(a):
            raise RemcpError("InvalidAddress", f"{hex_addr(address)} is not mapped: see "
                             f"list_segments", {"address": hex_addr(address)})
        block = self.memory.getBlock(a)
        size = min(size, int(block.getEnd().subtract(a)) + 1)
        return _u8(self.flat.getBytes(a, size))

    def instructions(self, address, count):
        insn = self.listing.getInstructionAt(self.addr(address))
        if insn is None:
            raise RemcpError("InvalidAddress", f"No instruction starts at {hex_addr(address)} "
                             f"(data or undefined bytes): pick a code address",
                             {"address": hex_addr(address)})
        out = []
        while insn is not None and len(out) < count:
            text = str(insn)
            mnemonic = str(insn.getMnemonicString())
            item = {"address": int(insn.getAddress().getOffset()), "bytes": _u8(insn.getBytes()),
                    "mnemonic": mnemonic.lower(), "operands": text[len(mnemonic):].strip()}
            flows = insn.getFlows()
            if flows:
                item["target"] = int(flows[0].getOffset())
                sym = self.symbols.getPrimarySymbol(flows[0])
                if sym is not None:
                    item["target_name"] = str(sym.getName())
            comment = self.listing.getComment(CodeUnit.EOL_COMMENT, insn.getAddress())
            if comment:
                item["comment"] = str(comment)
            out.append(item)
            insn = insn.getNext()
        return out

    def decompile(self, start):
        if self._decompiler is None:
            self._decompiler = DecompInterface()
            self._decompiler.openProgram(self.program)
        f = self.functions_.getFunctionAt(self.addr(start))
        result = self._decompiler.decompileFunction(f, 60, self.monitor)
        if not result.decompileCompleted():
            raise RemcpError("Internal", f"Ghidra's decompiler failed on {f.getName()}: "
                             f"{result.getErrorMessage()}", {"function": str(f.getName())})
        return str(result.getDecompiledFunction().getC())

    def xrefs(self, address, direction):
        a = self.addr(address)
        if direction == "to":
            refs = list(self.refs.getReferencesTo(a))
        else:
            f = self.functions_.getFunctionAt(a)
            sources = [a] if f is None else list(
                self.refs.getReferenceSourceIterator(f.getBody(), True))
            refs = [r for s in sources for r in self.refs.getReferencesFrom(s)]
        out = []
        for r in refs:
            t = r.getReferenceType()
            kind = ("call" if t.isCall() else "jump" if t.isJump() else "write" if t.isWrite()
                    else "read" if t.isRead() else "offset")
            src = r.getFromAddress()
            if not src.isMemoryAddress() or not r.getToAddress().isMemoryAddress():
                continue
            f = self.functions_.getFunctionContaining(src)
            insn = self.listing.getInstructionAt(src)
            item = {"from": int(src.getOffset()), "to": int(r.getToAddress().getOffset()),
                    "type": kind}
            if f is not None:
                item["function"] = str(f.getName())
            if insn is not None:
                item["instruction"] = str(insn)
            out.append(item)
        return out

    def set_name(self, address, name):
        a = self.addr(address)

        def apply():
            f = self.functions_.getFunctionAt(a)
            sym = f.getSymbol() if f is not None else self.symbols.getPrimarySymbol(a)
            old = str(sym.getName()) if sym is not None else None
            if name is None:
                if f is not None:
                    f.setName(None, SourceType.DEFAULT)
                elif sym is not None:
                    sym.delete()
            elif sym is not None:
                sym.setName(name, SourceType.USER_DEFINED)
            else:
                self.symbols.createLabel(a, name, SourceType.USER_DEFINED)
            return old
        return self._mutate("remcp rename", apply)

    def set_comment(self, address, text):
        a = self.addr(address)

        def apply():
            old = self.listing.getComment(CodeUnit.EOL_COMMENT, a)
            self.listing.setComment(a, CodeUnit.EOL_COMMENT, text)
            return str(old) if old is not None else None
        return self._mutate("remcp comment", apply)
