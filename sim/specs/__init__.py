"""Specs layer: data files read into frozen, validated pydantic specs (boards, dice, shots, props...); no
PyBullet."""
