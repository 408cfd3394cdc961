"""Thin route modules, one per resource."""
