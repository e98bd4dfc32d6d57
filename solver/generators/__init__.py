"""Model generators: parametric models built in code (returned as model-file data)."""
