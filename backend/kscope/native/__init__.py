"""Bindings to the native C core (libkscope.so)."""
