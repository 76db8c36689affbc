"""Ghidra through pyghidra (GHIDRA_INSTALL_DIR, JDK 21). Untested here: no Ghidra on this
machine; written against pyghidra's and Ghidra's public API documentation.

The JVM starts once per worker, before any Ghidra import; the file is imported into a
per-database project in the state folder, so a reopen reuses the analysed program. Every
mutation runs in a transaction; the program is saved on save_database and on SIGTERM."""
import os

from ..errors import RemcpError
from ..generic import ApiEngine


def create(path, options, env):
    return GhidraBackend(path, options, env)


class GhidraBackend(ApiEngine):
    name = "ghidra"
    decompiler = "ghidra"

    def load(self, ctx):
        try:
            import pyghidra
        except ImportError as err:
            raise RemcpError("Unavailable", f"pyghidra is not importable: {err}; pip install "
                             f"pyghidra and set GHIDRA_INSTALL_DIR", {"backend": self.name}) \
                from None
        started = getattr(pyghidra, "started", None)
        if not (started and started()):
            self.env.log("info", "starting the JVM (once per worker)")
            pyghidra.start()
        # Ghidra's Java packages import only once the JVM runs.
        from . import ghidra_tools
        self.tools = ghidra_tools
        folder = self.env.folder("ghidra", f"{self._sha256()[:16]}-{_safe(self.path)}")
        self.project, self.program, self.fresh = ghidra_tools.open_program(folder, self.path)
        self.api = ghidra_tools.Api(self.program)

    def analyse(self, ctx, status):
        if self.fresh or not self.tools.is_analysed(self.program):
            status.set("analysing", progress=None, message="Ghidra auto-analysis")
            self.tools.analyse(self.program, self.api.monitor)
        ctx.check()

    def interrupt(self):
        api = getattr(self, "api", None)
        if api is not None:
            api.monitor.cancel()  # TaskMonitor.cancel is thread-safe in Ghidra.

    def save(self):
        if getattr(self, "program", None) is None:
            return {"saved": False}
        self.project.save(self.program)
        return {"saved": True, "path": self.project.getProjectData().getProjectLocator()
                .getProjectDir().getAbsolutePath()}

    def close(self):
        if getattr(self, "api", None) is not None:
            self.api.dispose()
        if getattr(self, "project", None) is not None:
            self.project.close()

    # Primitives: delegated to ghidra_tools, which holds the Java imports.

    def segment_list(self):
        return self.api.blocks()

    def section_list(self):
        return self.api.blocks()


def _safe(path):
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in os.path.basename(path))[:48]
