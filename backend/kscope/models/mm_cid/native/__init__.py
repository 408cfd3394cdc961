"""The model's own ctypes bindings (STYLE habit 7: only a package named native touches ctypes):
conform.py binds the C conform replay (wasm-core/include/kscope/mm_cid/native/conform.h)."""
