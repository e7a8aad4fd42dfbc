"""One module per benchmark group; each exposes `run(ctx) -> list[BenchmarkResult]`."""
