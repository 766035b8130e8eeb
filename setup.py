"""Builds the compiled throw loop (sim/world/native/throwloop.c) at install; everything else is in pyproject.toml.

The loop is a PyBullet plugin: it calls Bullet's C API, which the installed pybullet wheel's own shared
object exports with C linkage, so it is linked against that very file (found in the environment being
installed into) and finds it again at run time by its directory. The headers it needs are vendored
(sim/world/native/bullet3, zlib licence). If the build cannot be done (no pybullet yet, no C compiler)
the install still succeeds and says so in one line; dfsim then says so once too and runs the Python loop
(docs/physics.md, "The compiled throw loop").
"""

from __future__ import annotations

import glob
import importlib.util
import os
import site
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

LOOP = "sim.world._throwloop"
FLAGS = ["-O2", "-std=gnu11", "-ffp-contract=off", "-fno-fast-math", "-fvisibility=hidden", "-Wall"]


def pybullet_library() -> str | None:
    """The installed pybullet wheel's shared object: importable here, or in the target environment's
    site-packages (pip builds in an isolated environment that hides them from the import system)."""
    spec = importlib.util.find_spec("pybullet")
    if spec is not None and spec.origin and spec.origin.endswith(".so"):
        return spec.origin
    dirs = [sysconfig.get_path("platlib"), sysconfig.get_path("purelib")] + list(getattr(site, "getsitepackages", list)())
    for d in dict.fromkeys(p for p in dirs if p):
        found = sorted(glob.glob(os.path.join(d, "pybullet.*.so")))
        if found:
            return found[0]
    return None


class BuildThrowLoop(build_ext):
    """build_ext that links the loop against pybullet's shared object, and never fails the install."""

    def build_extension(self, ext: Extension) -> None:
        lib = pybullet_library()
        if lib is None:
            print("dfsim: compiled throw loop not built: pybullet's shared object was not found "
                  "(install pybullet first); dfsim will run the Python loop", file=sys.stderr)
            return
        folder, name = os.path.split(os.path.realpath(lib))
        ext.extra_link_args = [f"-L{folder}", f"-l:{name}", f"-Wl,-rpath,{folder}"]
        try:
            super().build_extension(ext)
        except Exception as exc:  # a missing compiler, a failed compile: the Python loop still runs
            print(f"dfsim: compiled throw loop not built ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}); "
                  "dfsim will run the Python loop", file=sys.stderr)


setup(
    ext_modules=[Extension(LOOP, sources=["sim/world/native/throwloop.c", "sim/world/native/plateflight.c"], include_dirs=["sim/world/native"], libraries=["m"],
                           extra_compile_args=FLAGS, optional=True)],
    cmdclass={"build_ext": BuildThrowLoop},
)
