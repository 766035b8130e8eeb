"""The flip bank: a scenario's templates flipped onto the empty board many times over, once per machine,
and each throw's templates taken from one of those flips.

Why: templates flipped onto a board with no die on it do not depend on the throw that follows, and a
flip session (10-60 ms of flip world) cost several bare throws. So the sessions are made once, kept, and
every throw lands in a world where the templates lie at the resting poses of one of them.

- Entry e is the session throw e of the bank's own seed would have flipped afresh: the same flip world,
  the same requests (flip stream index 8 (8e + j) + p for piece p of the j-th flipped entry), the laid
  templates and the props standing at a flip, so a bank is a pure function of its key on a machine.
- Throw k of root seed s takes entry `rng_for(s, k, STREAM_FLIP_BANK).integers(size)`: a function of
  (s, k) only, whatever the number of workers, the chunking or the throws a worker made before.
- Content-addressed: the key names the board, the materials, the props, the templates (laid at their
  settled poses, flipped with their skills and aims), the rule deciding which are flipped, the flip
  profile and the bank's size; the seed is derived from the key. Kept in memory per process and on disk
  per machine (sim/diskcache.py, kind "flipbank": atomic writes, so concurrent builders of one bank are
  safe and write the same value), and a run ships each scenario's bank to its workers with the aimed
  release (prepared.json), so every worker, local or remote, and every replay uses the same flips.

What it costs in statistics: a run's template poses are a resample of `size` flips, so a hit rate
carries, besides its binomial error, the bank's own: the spread of the rate over the flips divided by
the root of the size (docs/templates.md, "The flip bank").
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sim.hashing import json_hash
from sim.seeding import STREAM_FLIP_BANK, rng_for

CACHE_KIND = "flipbank"
# a bank entry is a few counts and one pose per template (~200 bytes each); room for the largest bank
MAX_BANK_BYTES = 64_000_000

Pose = tuple[str, tuple[float, float, float], tuple[float, float, float, float]]
"""A template lying on the board: its piece id, position (m) and orientation (xyzw)."""


@dataclass(frozen=True)
class FlipTally:
    """What a throw's flip session counts in its record (the tpl_* flip columns)."""

    flips: int = 0
    damage: int = 0
    turned_too_little: int = 0
    not_flat: int = 0
    ok: int = 0
    pieces: int = 0
    hangs_off: int = 0
    stayed: bool = True
    reflips: int = 0

    @classmethod
    def of(cls, results: Sequence[Any]) -> FlipTally:
        """The tally of a session's FlipResults (sim/world/flip.py)."""
        return cls(
            flips=int(sum(f.flips for f in results)),
            damage=int(sum(f.damage for f in results)),
            turned_too_little=int(sum(f.too_little for f in results)),
            not_flat=int(sum(f.not_flat for f in results)),
            ok=int(sum(sum(a.status == "ok" for a in f.attempts) for f in results)),
            pieces=len(results),
            hangs_off=int(
                sum(sum(a.status in ("hangs-off", "off-board") for a in f.attempts) for f in results)
            ),
            stayed=bool(all(f.placed is not None for f in results)),
            reflips=int(sum(f.reflips for f in results)),
        )

    def to_json(self) -> list[int]:
        """The counts in field order (stayed as 0 / 1)."""
        return [
            self.flips,
            self.damage,
            self.turned_too_little,
            self.not_flat,
            self.ok,
            self.pieces,
            self.hangs_off,
            int(self.stayed),
            self.reflips,
        ]

    @classmethod
    def from_json(cls, value: Any) -> FlipTally:
        """Read `to_json`'s form back (ValueError when it is not nine whole numbers >= 0)."""
        if not isinstance(value, list) or len(value) != 9:
            raise ValueError("a tally is nine counts")
        if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value):
            raise ValueError("a tally's counts are whole numbers >= 0")
        flips, damage, too_little, not_flat, ok, pieces, hangs_off, stayed, reflips = value
        return cls(flips, damage, too_little, not_flat, ok, pieces, hangs_off, bool(stayed), reflips)


@dataclass(frozen=True)
class BankEntry:
    """One banked flip session: its tally and every template lying on the board after it."""

    tally: FlipTally
    placed: tuple[Pose, ...]

    def to_json(self) -> list:
        """[tally, [[id, x, y, z, qx, qy, qz, qw], ...]] (floats as JSON keeps them: to the bit)."""
        return [self.tally.to_json(), [[tid, *pos, *q] for tid, pos, q in self.placed]]

    @classmethod
    def from_json(cls, value: Any, ids: frozenset[str]) -> BankEntry:
        """Read `to_json`'s form back; every template must be one of `ids` and every number finite."""
        if not isinstance(value, list) or len(value) != 2 or not isinstance(value[1], list):
            raise ValueError("an entry is [tally, poses]")
        placed = []
        for row in value[1]:
            if not isinstance(row, list) or len(row) != 8 or row[0] not in ids:
                raise ValueError(f"a pose is [template id, x, y, z, qx, qy, qz, qw] of {sorted(ids)}")
            nums = row[1:]
            if not all(isinstance(v, float) and math.isfinite(v) for v in nums):
                raise ValueError("a pose holds finite numbers")
            placed.append((row[0], tuple(nums[:3]), tuple(nums[3:])))
        return cls(FlipTally.from_json(value[0]), tuple(placed))  # type: ignore[arg-type]


@dataclass(frozen=True)
class FlipBank:
    """A scenario's banked flip sessions, under the key they were made for."""

    key: str  # the content key's hash (`bank_stem`)
    entries: tuple[BankEntry, ...]

    @property
    def size(self) -> int:
        return len(self.entries)

    def pick(self, seed: int, index: int) -> BankEntry:
        """The entry of throw `index` of root seed `seed` (its own random stream)."""
        e = int(rng_for(seed, index, STREAM_FLIP_BANK).integers(self.size))
        return self.entries[e]

    def to_json(self) -> dict[str, Any]:
        """The bank as prepared.json and the disk cache keep it."""
        return {"key": self.key, "entries": [e.to_json() for e in self.entries]}

    @classmethod
    def from_json(cls, value: Any, size: int, ids: frozenset[str]) -> FlipBank:
        """Read `to_json`'s form back: `size` entries of templates among `ids` (ValueError otherwise)."""
        if not isinstance(value, dict) or not isinstance(value.get("key"), str):
            raise ValueError("a flip bank is {key, entries}")
        entries = value.get("entries")
        if not isinstance(entries, list) or len(entries) != size:
            raise ValueError(f"a flip bank of this scenario holds {size} entries")
        return cls(value["key"], tuple(BankEntry.from_json(e, ids) for e in entries))


def bank_stem(key: Any) -> str:
    """The hash naming a bank's content key (its seed is derived from it too)."""
    return json_hash(key, length=32)


def bank_seed(key: Any) -> int:
    """The root seed of a bank's flips: derived from its key, so equal keys flip equal sessions."""
    return int(bank_stem(key)[:15], 16)


_BANKS: dict[str, FlipBank] = {}  # banks made, read or installed in this process, by key hash


def remember(bank: FlipBank) -> None:
    """Keep a bank made elsewhere (a run's prepared.json) for this process."""
    _BANKS[bank.key] = bank


def clear_banks() -> None:
    """Forget the banks held in memory (the disk cache stays): tests."""
    _BANKS.clear()


def flip_bank(
    key: Any,
    size: int,
    ids: frozenset[str],
    flip: Callable[[int, int], BankEntry],
    progress: Callable[[int, int], None] | None = None,
) -> FlipBank:
    """The bank of `key`: from memory, from the disk cache, or made now, entry e being `flip(seed, e)`
    (`progress(done, size)` before each), then cached."""
    from sim import diskcache

    stem = bank_stem(key)
    bank = _BANKS.get(stem)
    if bank is not None and bank.size == size:
        return bank

    def valid(value: Any) -> bool:
        try:
            return FlipBank.from_json(value, size, ids).key == stem
        except ValueError:
            return False

    cached = diskcache.load(CACHE_KIND, key, valid=valid, max_bytes=MAX_BANK_BYTES)
    if cached is not None:
        bank = FlipBank.from_json(cached, size, ids)
    else:
        seed = bank_seed(key)
        entries = []
        for e in range(size):
            if progress is not None:
                progress(e, size)
            entries.append(flip(seed, e))
        if progress is not None:
            progress(size, size)
        bank = FlipBank(stem, tuple(entries))
        diskcache.store(
            CACHE_KIND,
            key,
            bank.to_json(),
            "template flips onto the empty board, each throw taking one; safe to delete",
        )
    _BANKS[stem] = bank
    return bank
