"""Pure rules (no PyBullet): traces, outcomes, the classifier, templates, effects, requirements and
fights. Imports only `sim.specs`, `sim.errors` and `sim.seeding`."""
