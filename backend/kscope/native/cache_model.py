"""The C cache-line cost model (cache_model.c) as a Python object: a fresh ks_cache on a
topology, named objects, and the ns the model charges for one access."""

import ctypes
from typing import Any

from kscope.native import core
from kscope.native import structs as st
from kscope.native.machine import Topology


class CacheModel:
    """ks_cache_new on `topology` with the default parameters (ks_cache_default_params);
    the caller keeps the topology open while this lives."""

    def __init__(self, topology: Topology) -> None:
        params = st.KsCacheParams()
        core.lib().ks_cache_default_params(ctypes.byref(params))
        self.params = {f: getattr(params, f) for f, _ in st.KsCacheParams._fields_}
        self._cache = ctypes.c_void_p()
        core.check(core.lib().ks_cache_new(topology.handle, ctypes.byref(params), ctypes.byref(self._cache)))
        self._count = 0

    def close(self) -> None:
        if self._cache:
            core.lib().ks_cache_free(self._cache)
            self._cache = ctypes.c_void_p()

    def __enter__(self) -> "CacheModel":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def new_object(self, size_bytes: int, home_node: int = 0) -> int:
        """Registers a fresh object (never touched: its lines are in DRAM); its id."""
        out = ctypes.c_int32()
        self._count += 1
        core.check(core.lib().ks_cache_add_object(self._cache, f"object{self._count}".encode(), size_bytes,
                                                  home_node, ctypes.byref(out)))
        return out.value

    def access(self, cpu: int, obj: int, offset: int, length: int, store: bool, now_ns: int) -> int:
        """The model's ns for one load or store of length bytes at offset, at now_ns."""
        cost = st.KsAccessCost()
        core.check(core.lib().ks_cache_access(self._cache, cpu, obj, offset, length, int(store), now_ns,
                                              ctypes.byref(cost)))
        return int(cost.ns)
