#!/usr/bin/env python3
"""remcp Python worker entry point.

    python3 remcp_worker.py --backend ghidra --catalog catalog.json [--options JSON] PATH

stdout belongs to the protocol: before anything else is imported, the protocol keeps a private
copy of file descriptor 1 and descriptor 1 is pointed at stderr, so whatever an engine prints
(IDA and the JVM both do) can never corrupt the JSON-RPC stream.
"""
import os
import sys


def _claim_stdout():
    protocol = os.fdopen(os.dup(1), "wb", buffering=0)
    sys.stdout.flush()
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return protocol


def main(argv):
    if sys.version_info < (3, 10):
        sys.stderr.write("remcp worker needs Python 3.10 or newer; set REMCP_PYTHON to one\n")
        return 2
    protocol = _claim_stdout()
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from remcp.cli import run
    return run(argv, sys.stdin.buffer, protocol)


if __name__ == "__main__":
    code = main(sys.argv[1:])
    # The reader thread may still sit in a blocking read of stdin, which makes a normal
    # interpreter shutdown abort; everything is saved and flushed by now, so leave at once.
    try:
        sys.stderr.flush()
    except (BrokenPipeError, OSError, ValueError):
        pass  # The reader of stderr is gone; the exit status still tells the truth.
    os._exit(code)
