"""Algorithm models in the backend: one package per model (models/<name>/), listed in
registry.py, described by model.py's Model. backend/README.md, "Models"."""
