"""Engine detection, run by the supervisor as ``python3 -c <this file> PYTHON_NAME``: prints one
JSON object saying, for each engine, whether it can run here, its version, and why not.
Nothing is imported from an engine (importing idapro or binaryninja loads the engine itself)."""
import importlib.util
import json
import os
import sys


def _importable(name):
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _dist_version(name):
    try:
        from importlib.metadata import version
        return version(name)
    except Exception:
        return None


def _read_properties(path, key):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith(key + "="):
                    return line.split("=", 1)[1].strip()
    except OSError:
        return None
    return None


def ghidra(py):
    home = os.environ.get("GHIDRA_INSTALL_DIR")
    has_module = _importable("pyghidra")
    if not home and not has_module:
        return {"available": False,
                "reason": f"GHIDRA_INSTALL_DIR is not set and pyghidra is not importable by {py}"}
    if not home:
        return {"available": False,
                "reason": "GHIDRA_INSTALL_DIR is not set (pyghidra is installed): point it at "
                          "a Ghidra 11.3+ installation"}
    props = os.path.join(home, "Ghidra", "application.properties")
    if not os.path.isfile(props):
        return {"available": False,
                "reason": f"GHIDRA_INSTALL_DIR={home} is not a Ghidra installation "
                          f"(no Ghidra/application.properties)"}
    version = _read_properties(props, "application.version")
    if not has_module:
        return {"available": False, "version": version,
                "reason": f"pyghidra is not importable by {py} (GHIDRA_INSTALL_DIR={home}): "
                          f"pip install pyghidra, or install it from "
                          f"{home}/Ghidra/Features/PyGhidra/pypkg/dist"}
    return {"available": True, "version": version}


def _ida_config_dir():
    if os.environ.get("IDAUSR"):
        return os.environ["IDAUSR"].split(os.pathsep)[0]
    if sys.platform == "win32":
        return os.path.join(os.environ.get("APPDATA", ""), "Hex-Rays", "IDA Pro")
    return os.path.join(os.path.expanduser("~"), ".idapro")


def ida_install_dir():
    """IDADIR, else the install dir idalib's activation script wrote to IDA's config."""
    if os.environ.get("IDADIR"):
        return os.environ["IDADIR"]
    try:
        with open(os.path.join(_ida_config_dir(), "ida-config.json"), encoding="utf-8") as f:
            return json.load(f).get("Paths", {}).get("ida-install-dir") or None
    except (OSError, ValueError, AttributeError):
        return None


def ida(py):
    home = ida_install_dir()
    has_module = _importable("idapro")
    where = ("IDADIR is not set and ~/.idapro/ida-config.json names no IDA install dir"
             if not home else f"IDA is at {home}")
    if not has_module:
        hint = (f"pip install {home}/idalib/python, then run py-activate-idalib.py" if home
                else "install IDA Pro 9+ and its idalib Python package")
        return {"available": False,
                "reason": f"idapro (idalib's Python package) is not importable by {py}; "
                          f"{where}: {hint}"}
    if not home:
        return {"available": False,
                "reason": f"idapro is installed but {where}: set IDADIR or run "
                          f"py-activate-idalib.py"}
    libs = ("libidalib.so", "libidalib.dylib", "idalib.dll")
    if not any(os.path.exists(os.path.join(home, lib)) for lib in libs):
        return {"available": False,
                "reason": f"{home} has no idalib library ({', '.join(libs)}): idalib needs "
                          f"IDA Pro 9 or newer"}
    return {"available": True, "version": _dist_version("idapro")}


BINJA_PATHS = {
    "linux": ["/opt/binaryninja", os.path.expanduser("~/binaryninja")],
    "darwin": ["/Applications/Binary Ninja.app/Contents/Resources"],
    "win32": [r"C:\Program Files\Vector35\BinaryNinja"],
}


def binja_python_dir():
    """The folder holding the binaryninja package when it is not importable as installed:
    BN_INSTALL_DIR, else the platform's default install locations."""
    roots = [os.environ["BN_INSTALL_DIR"]] if os.environ.get("BN_INSTALL_DIR") else []
    roots += BINJA_PATHS.get(sys.platform, [])
    for root in roots:
        for sub in ("python", os.path.join("Resources", "python")):
            if os.path.isdir(os.path.join(root, sub, "binaryninja")):
                return os.path.join(root, sub)
    return None


def binja(py):
    if _importable("binaryninja"):
        return {"available": True, "version": _dist_version("binaryninja")}
    found = binja_python_dir()
    if found:
        return {"available": True, "python_dir": found}
    return {"available": False,
            "reason": f"binaryninja is not importable by {py} and no Binary Ninja install was "
                      f"found (set BN_INSTALL_DIR; the headless API needs a Commercial or "
                      f"Ultimate license)"}


def main():
    py = sys.argv[1] if len(sys.argv) > 1 else "python3"
    out = {"python": {"version": "%d.%d.%d" % sys.version_info[:3],
                      "ok": sys.version_info >= (3, 10)}}
    for name, probe in (("ghidra", ghidra), ("ida", ida), ("binja", binja)):
        try:
            out[name] = probe(py)
        except Exception as err:  # A probe never fails the listing.
            out[name] = {"available": False, "reason": f"detection failed: {err}"}
    sys.stdout.write(json.dumps(out))


if __name__ == "__main__":
    main()
