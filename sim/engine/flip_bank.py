"""The flip bank: a scenario's templates flipped onto the empty board many times over, each flip made
the first time a throw needs it and kept, and each throw's templates taken from one of those flips.

Why: templates flipped onto a board with no die on it do not depend on the throw that follows, and a
flip session (10-60 ms of flip world) costs several bare throws. So each session is made once per
machine, kept, and every throw lands in a world where the templates lie at the resting poses of one.

- Entry j is the session throw j of the bank's own seed would have flipped afresh: the same flip world,
  the same requests (flip stream index 8 (8j + i) + p for piece p of the i-th flipped entry), the laid
  templates and the props standing at a flip, so an entry is a pure function of (key, j) on a machine,
  whatever the entries made before it or the order they were made in.
- Throw k of root seed s takes entry `rng_for(s, k, STREAM_FLIP_BANK).integers(size)`: a function of
  (s, k) only, whatever the number of workers, the chunking or the throws a worker made before. The
  size is fixed, so a short run's throws are the first throws of a long run's.
- Lazy: an entry is flipped when a throw first picks it (inside that throw, so a run's bar covers it),
  never before: a run of n throws makes at most n entries, a long run at most `size`.
- Content-addressed, per entry: the bank's key names the board, the materials, the props, the
  templates (laid at their settled poses, flipped with their skills and aims), the rule deciding which
  are flipped, the flip profile and the bank's size; the seed is derived from it. An entry is kept in
  memory per process and on disk per machine under (key, j) (sim/diskcache.py, kind "flipbank": atomic
  writes, so two workers making one entry at once are safe and write the same value). A run ships the
  entries known when it prepares (in memory or on disk; none on an empty cache) to its workers with the
  aimed release (prepared.json); the workers make the rest.

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


def bank_stem(key: Any) -> str:
    """The hash naming a bank's content key (its seed is derived from it too)."""
    return json_hash(key, length=32)


def bank_seed(key: Any) -> int:
    """The root seed of a bank's flips: derived from its key, so equal keys flip equal sessions."""
    return int(bank_stem(key)[:15], 16)


# the entries made, read or installed in this process: bank key hash -> entry index -> entry
_ENTRIES: dict[str, dict[int, BankEntry]] = {}


def clear_banks() -> None:
    """Forget the entries held in memory (the disk cache stays): tests."""
    _ENTRIES.clear()


class FlipBank:
    """A scenario's flip bank of `size` entries under its content key, each entry made (by
    `flip(seed, j)`) the first time it is needed, then kept in memory and on disk."""

    def __init__(
        self,
        key: Any,
        size: int,
        ids: frozenset[str],
        flip: Callable[[int, int], BankEntry],
    ) -> None:
        if size < 1:
            raise ValueError("a flip bank holds at least one entry")
        self._key = key
        self.key = bank_stem(key)
        self.seed = bank_seed(key)
        self.size = size
        self.ids = ids
        self._flip = flip
        self.entries = _ENTRIES.setdefault(self.key, {})  # shared by every bank of this key here
        self.made: list[int] = []  # the entries this bank flipped (not read back), in order

    def index(self, seed: int, index: int) -> int:
        """The entry index throw `index` of root seed `seed` takes (its own random stream)."""
        return int(rng_for(seed, index, STREAM_FLIP_BANK).integers(self.size))

    def pick(self, seed: int, index: int) -> BankEntry:
        """The entry of throw `index` of root seed `seed`, made now if nobody made it before."""
        return self.entry(self.index(seed, index))

    def entry(self, j: int) -> BankEntry:
        """Entry j: from memory, from the disk cache, or flipped now (then kept in both)."""
        if not 0 <= j < self.size:
            raise IndexError(f"entry {j} of a flip bank of {self.size}")
        got = self.entries.get(j)
        if got is None:
            got = self._cached(j)
        if got is None:
            got = self._flip(self.seed, j)
            self.made.append(j)
            from sim import diskcache

            diskcache.store(
                CACHE_KIND,
                [self._key, j],
                got.to_json(),
                "one template flip onto the empty board, which throws take; safe to delete",
            )
        self.entries[j] = got
        return got

    def _cached(self, j: int) -> BankEntry | None:
        from sim import diskcache

        def valid(value: Any) -> bool:
            try:
                BankEntry.from_json(value, self.ids)
            except ValueError:
                return False
            return True

        value = diskcache.load(CACHE_KIND, [self._key, j], valid=valid)
        return None if value is None else BankEntry.from_json(value, self.ids)

    def known(self) -> dict[int, BankEntry]:
        """Every entry held in memory or on disk, read into memory (none flipped)."""
        for j in range(self.size):
            if j not in self.entries:
                got = self._cached(j)
                if got is not None:
                    self.entries[j] = got
        return dict(sorted(self.entries.items()))

    def fill(self, progress: Callable[[int, int], None] | None = None) -> None:
        """Make (or read) every entry now (`progress(done, size)` before each): a benchmark timing
        throws without their first flips."""
        for j in range(self.size):
            if progress is not None:
                progress(j, self.size)
            self.entry(j)
        if progress is not None:
            progress(self.size, self.size)

    def to_json(self) -> dict[str, Any]:
        """The entries this process knows, as prepared.json ships them: {key, size, entries: [[j,
        entry], ...]}."""
        return {
            "key": self.key,
            "size": self.size,
            "entries": [[j, e.to_json()] for j, e in sorted(self.entries.items())],
        }

    def install(self, value: Any) -> None:
        """Keep the entries a run shipped (`to_json`'s form, ValueError when it is not this bank's)."""
        if not isinstance(value, dict) or value.get("key") != self.key or value.get("size") != self.size:
            raise ValueError(f"a flip bank is {{key, size, entries}} of key {self.key}, size {self.size}")
        rows = value.get("entries")
        if not isinstance(rows, list):
            raise ValueError("a flip bank's entries are [[index, entry], ...]")
        got: dict[int, BankEntry] = {}
        for row in rows:
            if not isinstance(row, list) or len(row) != 2:
                raise ValueError("a flip bank's entries are [[index, entry], ...]")
            j = row[0]
            if not isinstance(j, int) or isinstance(j, bool) or not 0 <= j < self.size or j in got:
                raise ValueError(f"a flip bank's entry index is a whole number below {self.size}, once")
            got[j] = BankEntry.from_json(row[1], self.ids)
        self.entries.update(got)
