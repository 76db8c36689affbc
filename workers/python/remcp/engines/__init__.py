"""Engine adapters. Each module exposes ``create(path, options, env) -> Backend`` and imports
its engine only inside ``load`` (after any bootstrap the engine requires)."""
