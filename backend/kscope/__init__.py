"""kscope backend: serves the visualizer and exposes the C core's models over HTTP and a CLI."""

__version__ = "0.1.0"
