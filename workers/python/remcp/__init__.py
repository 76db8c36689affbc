"""remcp's shared Python worker runtime: an MCP server over stdio for engine backends.

Standard library only. Engine modules (pyghidra, idapro, binaryninja) are imported by the
engine adapters under ``remcp.engines`` and never by the runtime itself.
"""
