"""The HTTP API (FastAPI) and the static frontend it serves."""
