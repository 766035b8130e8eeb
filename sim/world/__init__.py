"""World layer: the only code that imports PyBullet (physics facade, meshes, props, template flight and
flips)."""
