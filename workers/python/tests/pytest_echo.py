"""Test scaffolding, not a backend: an engine-free tool module over the file's bytes, exposed only
when REMCP_ENABLE_TEST_BACKEND=1, so the shared runtime (protocol, threading, cancellation,
errors, output cap, save on SIGTERM) and the shared tools of ``remcp.generic`` are tested through
the real supervisor.

The file is mapped as one fake section at ``base`` (default 0x10000). Options:
``names`` (synthetic names, default 3000), ``search_delay_s`` (search_bytes works that long in
cancellable steps with progress), ``analysis_delay_s``, ``fail`` (a tool name that raises an
engine-style exception).
"""
import json
import os
import time

from ..errors import RemcpError
from ..generic import Engine
from ..results import hex_addr, page_of


def create(path, options, env):
    return EchoBackend(path, options, env)


class EchoBackend(Engine):
    name = "pytest-echo"

    def load(self, ctx):
        try:
            with open(self.path, "rb") as f:
                self.data = f.read(64 * 1024 * 1024)
        except OSError as err:
            raise RemcpError("OpenFailed", f"Cannot read {self.path}: {err}", {}) from None
        self.base = int(self.options.get("base", 0x10000))
        self.store = os.path.join(self.env.folder("pytest-echo"), f"{self._sha256()}.json")
        self.renamed = {}
        if os.path.exists(self.store):
            with open(self.store, encoding="utf-8") as f:
                self.renamed = {int(k): v for k, v in json.load(f)["names"].items()}
        self.dirty = False

    def analyse(self, ctx, status):
        count = int(self.options.get("names", 3000))
        delay = float(self.options.get("analysis_delay_s", 0))
        steps = max(1, int(delay / 0.05))
        for i in range(steps):
            ctx.check()
            status.set("analysing", progress=i / steps, message="naming")
            if delay:
                time.sleep(delay / steps)
        self.by_addr = {self.base + i * 16: f"sym_{i:05d}" for i in range(count)}
        self.by_addr.update(self.renamed)

    def handlers(self):
        table = super().handlers()
        table["search_bytes"] = self.search_bytes
        failing = self.options.get("fail")
        if failing in table:
            def explode(args, ctx):
                raise ValueError(f"synthetic engine failure in {failing}")
            table[failing] = explode
        return table

    def save(self):
        if self.dirty or not os.path.exists(self.store):
            tmp = self.store + ".tmp"
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump({"names": {str(k): v for k, v in self.renamed.items()}}, f)
            os.replace(tmp, self.store)
            self.dirty = False
        return {"saved": True, "path": self.store}

    # Primitives.

    def facts(self):
        return {"format": "raw", "arch": "none", "bits": 64, "endian": "little", "entry": None,
                "image_base": self.base, "details": {"names": len(self.by_addr)}}

    def segment_list(self):
        return [{"name": ".data", "start": self.base, "end": self.base + len(self.data),
                 "file_offset": 0, "file_size": len(self.data), "perms": "r--", "kind": "data"}]

    section_list = segment_list

    def entry_list(self):
        return [{"name": "start", "address": self.base, "kind": "entry"}]

    def name_list(self):
        return [(a, n, 16, "object", "user" if a in self.renamed else "synthetic")
                for a, n in self.by_addr.items()]

    def read(self, address, size):
        off = address - self.base
        if off < 0 or off >= len(self.data):
            raise RemcpError("InvalidAddress",
                             f"{hex_addr(address)} is not mapped; the file is mapped at "
                             f"{hex_addr(self.base)}..{hex_addr(self.base + len(self.data))}",
                             {"address": hex_addr(address)})
        return self.data[off:off + size]

    def set_name(self, address, name):
        old = self.by_addr.get(address)
        if name is None:
            self.by_addr.pop(address, None)
            self.renamed.pop(address, None)
        else:
            self.by_addr[address] = self.renamed[address] = name
        self.dirty = True
        return old

    # A slow tool for cancellation and progress tests.

    def search_bytes(self, args, ctx):
        pattern = args["pattern"].replace(" ", "")
        pairs = [pattern[i:i + 2] for i in range(0, len(pattern), 2)]
        try:
            if len(pattern) % 2:
                raise ValueError
            needle = [None if p == "??" else int(p, 16) for p in pairs]
        except ValueError:
            raise RemcpError("InvalidArgument",
                             f'pattern "{args["pattern"]}" is not hex byte pairs or ??',
                             {"param": "pattern"}) from None
        delay = float(self.options.get("search_delay_s", 0))
        steps = max(1, int(delay / 0.05))
        for i in range(steps):
            ctx.check()
            ctx.progress(i, steps, "searching")
            if delay:
                time.sleep(delay / steps)
        hits = [off for off in range(len(self.data) - len(needle) + 1)
                if all(b is None or self.data[off + j] == b for j, b in enumerate(needle))]
        return page_of(hits, args, lambda off: {"address": hex_addr(self.base + off),
                                                "section": ".data"})
