"""One module per section; each registers itself with bench.registry.register."""
