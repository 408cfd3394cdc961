"""Hostile-client probes (issue 20): a real server attacked on loopback, memory and /api/health watched."""
