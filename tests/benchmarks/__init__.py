"""The benchmarks' own metrics."""
