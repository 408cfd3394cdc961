"""Process-wide configuration of the backend."""
