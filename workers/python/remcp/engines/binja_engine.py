"""Binary Ninja through its headless Python API (Commercial and Ultimate editions). Untested
here: no Binary Ninja on this machine; written against the public API documentation.

``binaryninja.load`` opens the file (or the analysed .bndb kept in the state folder),
``update_analysis_and_wait`` analyses, HLIL gives decompilation, and save_database writes the
.bndb. Editions without the headless API are refused with Unavailable, saying so."""
import os
import sys

from ..errors import RemcpError
from ..generic import Engine
from ..probe import binja_python_dir


def create(path, options, env):
    return BinjaBackend(path, options, env)


class BinjaBackend(Engine):
    name = "binja"

    def load(self, ctx):
        found = binja_python_dir()
        if found and found not in sys.path:
            sys.path.append(found)
        try:
            import binaryninja
        except ImportError as err:
            raise RemcpError("Unavailable", f"binaryninja is not importable: {err}; set "
                             f"BN_INSTALL_DIR to the Binary Ninja install folder",
                             {"backend": self.name}) from None
        except Exception as err:  # The core refuses licenses without headless use at import.
            raise _edition_error(err) from None
        from . import binja_tools
        self.api = binja_tools
        folder = self.env.folder("binja")
        self.bndb = os.path.join(folder, f"{self._sha256()[:16]}-{os.path.basename(self.path)}"
                                         f".bndb")
        source = self.bndb if os.path.exists(self.bndb) else self.path
        try:
            self.bv = binaryninja.load(source, update_analysis=False)
        except Exception as err:
            if "license" in str(err).lower() or "headless" in str(err).lower():
                raise _edition_error(err) from None
            raise RemcpError("OpenFailed", f"Binary Ninja could not open {self.path}: {err}",
                             {"path": self.path}) from None
        if self.bv is None:
            raise RemcpError("OpenFailed", f"Binary Ninja has no view for {self.path}: it is "
                             f"not a format it recognises", {"path": self.path})

    def analyse(self, ctx, status):
        status.set("analysing", message="Binary Ninja analysis")
        self.bv.update_analysis_and_wait()

    def interrupt(self):
        bv = getattr(self, "bv", None)
        if bv is not None:
            bv.abort_analysis()

    def save(self):
        if getattr(self, "bv", None) is None:
            return {"saved": False}
        if not self.bv.create_database(self.bndb):
            raise RemcpError("WriteFailed", f"Binary Ninja could not write {self.bndb}",
                             {"path": self.bndb})
        return {"saved": True, "path": self.bndb}

    def close(self):
        if getattr(self, "bv", None) is not None:
            self.bv.file.close()

    def facts(self):
        return self.api.facts(self.bv)

    def segment_list(self):
        return self.api.segments(self.bv)

    def section_list(self):
        return self.api.sections(self.bv)

    def entry_list(self):
        return self.api.entries(self.bv)

    def import_list(self):
        return self.api.imports(self.bv)

    def name_list(self):
        return self.api.names(self.bv)

    def function_list(self):
        return [self.api.function_dict(f) for f in self.bv.functions]

    def function_containing(self, address):
        fns = self.bv.get_functions_containing(address)
        return self.api.function_dict(fns[0]) if fns else None

    def string_list(self):
        return self.api.strings(self.bv)

    def read(self, address, size):
        return self.api.read(self.bv, address, size)

    def instructions(self, address, count):
        return self.api.instructions(self.bv, address, count)

    def decompile(self, start):
        return "binja-hlil", self.api.decompile(self.bv, start)

    def xref_list(self, address, direction):
        return self.api.xrefs(self.bv, address, direction)

    def set_name(self, address, name):
        return self.api.set_name(self.bv, address, name)

    def set_comment(self, address, text):
        return self.api.set_comment(self.bv, address, text)


def _edition_error(err):
    return RemcpError("Unavailable", f"This Binary Ninja edition cannot be used headless "
                      f"({err}): the headless API needs a Commercial or Ultimate license",
                      {"backend": "binja"})
