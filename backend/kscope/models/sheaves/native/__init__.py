"""The sheaves model's ctypes binding (the only module of the model that touches ctypes)."""
