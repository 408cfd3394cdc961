"""The cpupri model's ctypes bindings (only a package named native touches ctypes)."""
