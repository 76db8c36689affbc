"""IDA Pro 9+ through idalib (IDADIR, or the install dir in IDA's own config). Untested here:
no IDA on this machine; written against the idalib/IDAPython documentation.

``import idapro`` must come before any ``ida_*`` module, so this file imports only idapro (inside
``load``) and the ``ida_*``-using primitives live in ida_tools, imported after it. The database
sidecar (.i64) goes next to the input, so the input must be in a writable folder; otherwise it
is copied into the state folder (and get_database_info says so). Fat Mach-O files need a slice:
``options.arch`` picks it, otherwise AmbiguousFatBinary lists them."""
import os
import shutil
import struct

from ..errors import RemcpError
from ..generic import ApiEngine

# Mach-O cputype → slice name (CPU_ARCH_ABI64 = 0x01000000).
_CPU_NAMES = {7: "i386", 0x01000007: "x86_64", 12: "arm", 0x0100000C: "arm64",
              0x0200000C: "arm64_32", 18: "ppc", 0x01000012: "ppc64"}
_FAT_MAGICS = (0xCAFEBABE, 0xCAFEBABF)

# Raw processors whose bitness IDA cannot guess: the caller must pick a variant.
RAW_ARCHES = {
    "x86_16": ("metapc", 16), "x86_32": ("metapc", 32), "x86_64": ("metapc", 64),
    "arm32": ("arm", 32), "thumb": ("arm", 32), "arm64": ("arm", 64),
    "mips32": ("mips", 32), "mips64": ("mips", 64), "ppc32": ("ppc", 32), "ppc64": ("ppc", 64),
    "riscv32": ("riscv", 32), "riscv64": ("riscv", 64),
}
AMBIGUOUS = {"x86": ["x86_16", "x86_32", "x86_64"], "arm": ["arm32", "thumb", "arm64"],
             "mips": ["mips32", "mips64"], "ppc": ["ppc32", "ppc64"],
             "riscv": ["riscv32", "riscv64"]}


def fat_slices(path):
    """The slices of a fat Mach-O file as ``[(name, offset, size)]``, or None if it is not one.
    (Java class files share the magic; their second word is large, fat headers' is small.)"""
    with open(path, "rb") as f:
        head = f.read(8)
        if len(head) < 8:
            return None
        magic, count = struct.unpack(">II", head)
        if magic not in _FAT_MAGICS or not 0 < count < 32:
            return None
        entry = 32 if magic == 0xCAFEBABF else 20
        slices = []
        for _ in range(count):
            raw = f.read(entry)
            if len(raw) < entry:
                return None
            if entry == 20:
                cputype, _sub, offset, size, _align = struct.unpack(">iiIII", raw)
            else:
                cputype, _sub, offset, size, _align, _res = struct.unpack(">iiQQII", raw)
            slices.append((_CPU_NAMES.get(cputype & 0xFFFFFFFF, f"cpu{cputype:#x}"), offset, size))
        return slices


def loader_args(path, options):
    """IDA command-line switches for ``path`` and the i64 suffix (per fat slice)."""
    args, suffix = [], ""
    slices = fat_slices(path)
    if slices is not None:
        names = [s[0] for s in slices]
        arch = options.get("arch")
        if arch not in names:
            raise RemcpError("AmbiguousFatBinary",
                             f"{os.path.basename(path)} is a fat Mach-O file with slices "
                             f"{', '.join(names)}: open it again with options "
                             f'{{"arch": "{names[0]}"}} (one of them)',
                             {"slices": names, "path": path})
        index = names.index(arch) + 1
        args.append(f'-T"Fat Mach-O file, {index}"')
        suffix = f".{arch}"
    elif "arch" in options:
        arch = options["arch"]
        if arch in AMBIGUOUS:
            raise RemcpError("InvalidArgument",
                             f'arch "{arch}" is ambiguous for a raw file: IDA needs the '
                             f"bitness; use one of {', '.join(AMBIGUOUS[arch])}",
                             {"param": "arch", "variants": AMBIGUOUS[arch]})
        if arch not in RAW_ARCHES:
            raise RemcpError("InvalidArgument", f'Unknown arch "{arch}" for a raw file; '
                             f"known: {', '.join(sorted(RAW_ARCHES))}",
                             {"param": "arch", "known": sorted(RAW_ARCHES)})
        proc, _bits = RAW_ARCHES[arch]
        args.append(f"-p{proc}")
        if "base" in options:
            base = int(str(options["base"]), 0)
            args.append(f"-b{base // 16:#x}")  # IDA's -b takes paragraphs.
    return args, suffix


def create(path, options, env):
    return IdaBackend(path, options, env)


class IdaBackend(ApiEngine):
    decompiler = "hex-rays"
    name = "ida"

    def load(self, ctx):
        args, suffix = loader_args(self.path, self.options)
        self.input = self._writable_input()
        self.idb = f"{self.input}{suffix}.i64"
        try:
            import idapro  # Bootstraps idalib: before any ida_* module.
        except ImportError as err:
            raise RemcpError("Unavailable", f"idapro is not importable: {err}; install IDA Pro "
                             f"9+ and its idalib Python package", {"backend": self.name}) \
                from None
        self.idapro = idapro
        args.append(f"-o{self.idb}")
        rc = idapro.open_database(self.input, False, " ".join(args))
        if rc != 0:
            raise RemcpError("OpenFailed", f"idalib could not open {self.path} (open_database "
                             f"returned {rc}); check the file and the IDA license",
                             {"path": self.path, "code": rc, "args": args})
        self.opened = True
        from . import ida_tools  # ida_* modules, now that idalib runs.
        self.api = ida_tools

    def _writable_input(self):
        folder = os.path.dirname(os.path.abspath(self.path))
        if os.access(folder, os.W_OK):
            return self.path
        copy_dir = self.env.folder("ida", self._sha256()[:16])
        copy = os.path.join(copy_dir, os.path.basename(self.path))
        if not os.path.exists(copy):
            shutil.copyfile(self.path, copy)
        self.copied = copy
        self.env.log("warning", f"{folder} is not writable: IDA's database goes beside a copy "
                                f"of the input at {copy}")
        return copy

    def analyse(self, ctx, status):
        status.set("analysing", message="IDA auto-analysis")
        self.api.auto_wait()

    def interrupt(self):
        api = getattr(self, "api", None)
        if api is not None:
            api.request_cancel()

    def save(self):
        if not getattr(self, "opened", False):
            return {"saved": False}
        self.api.save(self.idb)
        return {"saved": True, "path": self.idb}

    def close(self):
        if getattr(self, "opened", False):
            self.idapro.close_database(False)  # Saved just before by the runtime.

    def facts(self):
        facts = self.api.facts()
        if getattr(self, "copied", None):
            facts["details"]["input_copy"] = self.copied
        return facts

