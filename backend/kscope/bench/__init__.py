"""Benchmark commands (`kscope bench core|frame`): figures printed, never timed tests.

The wasm halves are Node scripts beside this file (wasm_core.mjs is their shared
loader of the browser's module); node.py runs them.
"""
