"""Engine layer: joins the rules and the world - releases, aim, the thrower, determinism checks,
benchmarks."""
