"""Speed and accuracy measurements (not part of the test suite): ``python -m benchmarks.<name>``."""
