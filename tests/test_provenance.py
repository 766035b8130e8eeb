"""What a replay can promise: the same machine and packages replay bit for bit, another CPU with the
same packages is expected to, other packages or another platform agree only in their statistics."""

from __future__ import annotations

import copy

from sim.provenance import machine, reproducibility, run_reproducibility


def test_the_three_cases():
    here = machine()
    assert reproducibility(here).startswith("made on this kind of machine")
    cpu = copy.deepcopy(here) | {"cpu": "Some Other CPU 9000"}
    assert reproducibility(cpu).startswith("made on another CPU (Some Other CPU 9000) with the same packages")
    old = copy.deepcopy(here)
    old["packages"]["numpy"] = "1.26.4"
    text = reproducibility(old)
    assert text.startswith("made with other packages") and f"numpy 1.26.4 there, {here['packages']['numpy']} here" in text
    arch = copy.deepcopy(here) | {"architecture": "aarch64" if here["architecture"] != "aarch64" else "x86_64"}
    assert "only the statistics" in reproducibility(arch)
    assert "does not say where it was made" in reproducibility(None)


def test_a_run_resumed_elsewhere_promises_the_least():
    here = machine()
    other = copy.deepcopy(here)
    other["packages"]["pybullet"] = "3.2.5"
    assert run_reproducibility([here]).startswith("made on this kind")
    assert run_reproducibility([here, other]).startswith("made with other packages")
    assert "does not say" in run_reproducibility(None)
