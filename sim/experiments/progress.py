"""The run's progress bar, with a time-left estimate that is not wildly wrong at the start.

Why not tqdm's own rate: the bar starts before the aimed release is solved (seconds to a minute of
reference throws), each worker's first chunk also builds its world, and chunks come back in bursts,
one per worker at about the same time. tqdm's rate counts all of that as throwing time: its first
estimate was off twentyfold (quickstart on two busy cores: 11:26 left, with 26 s to go). Here the
rate is measured over the last two rounds of chunks only, and nothing is shown until two rounds
have come back.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Any

BAR_FORMAT = "{l_bar}{bar}| {n_fmt}/{total_fmt} throws [{elapsed}{postfix}]"


class Eta:
    """Throws per second and time left, from the last few chunks that came back.

    The rate is taken over a window of the last 2 x workers chunks (two rounds of the pool), or of as
    many chunks as there are cells when there are more, so a worker's first chunk - which also
    builds its world - weighs only until the pool is warm, every cell is in the sample, and nothing
    is shown before the window is full."""

    def __init__(self, workers: int, unit: str = "throw", cells: int = 1) -> None:
        # cells advance together (chunk j of every cell before chunk j + 1 of any): a window of fewer
        # chunks than cells would time only the first cells, which may be far quicker than the rest
        # (templates flipped, props): the estimate waits for a chunk of every cell
        self.window = max(2, 2 * workers, int(cells))
        self.unit = unit  # what the bar counts: throws, or a fight experiment's fights
        self.times: list[float] = []  # when each chunk came back
        self.done: list[int] = []  # throws back by then (cumulative)

    def chunk_done(self, throws: int, t: float) -> None:
        """A chunk of `throws` throws came back at time `t` (s, any monotonic clock)."""
        self.times.append(t)
        self.done.append((self.done[-1] if self.done else 0) + throws)

    def rate(self) -> float | None:
        """Throws per second, or None while too few chunks are back to say."""
        w = self.window
        if len(self.times) <= w or self.times[-1] <= self.times[-1 - w]:
            return None
        return (self.done[-1] - self.done[-1 - w]) / (self.times[-1] - self.times[-1 - w])

    def text(self, remaining: int) -> str:
        """'N throws/s, M:SS left' for `remaining` throws (fights/s for fights), or "" while there is no
        estimate yet."""
        r = self.rate()
        if r is None:
            return ""
        left = int(round(max(0, remaining) / r))
        return f"{r:.0f} {self.unit}s/s, {left // 60}:{left % 60:02d} left"


class RunProgress:
    """The tqdm bar of a run (stderr; tqdm.auto: a widget in Jupyter), and its estimate."""

    def __init__(self, total: int, initial: int, quiet: bool, unit: str = "throw") -> None:
        from tqdm.auto import tqdm

        self.bar = tqdm(
            total=total,
            initial=initial,
            unit=unit,
            unit_scale=False,
            disable=quiet,
            file=sys.stderr,
            dynamic_ncols=True,
            bar_format=BAR_FORMAT.replace("throws", unit + "s"),
        )
        self.eta: Eta | None = None
        self.unit = unit
        self.where = ""

    def throwing(self, executor_name: str, workers: int, cells: int = 1) -> None:
        """Chunks of `cells` cells are about to be handed to `workers` workers of an executor: name it,
        start the estimate."""
        self.where = f"{executor_name} x{workers}"
        self.eta = Eta(workers, self.unit, cells)
        self._postfix()

    def chunk_done(self, throws: int, counted: bool = True) -> None:
        """A chunk came back; `counted`: it is part of the records (not one past a stopping point)."""
        if self.eta is not None:
            self.eta.chunk_done(throws, time.perf_counter())
        self._postfix(throws if counted else 0)
        if counted:
            self.bar.update(throws)

    def set_total(self, total: int) -> None:
        """The planned number of throws changed (a stopping rule decided)."""
        self.bar.total = total
        self._postfix()
        self.bar.refresh()

    def describe(self, text: str) -> None:
        """Text in front of the bar (e.g. the aiming phase); "" for none."""
        self.bar.set_description_str(text)

    def _postfix(self, coming: int = 0) -> None:
        eta = self.eta.text(int((self.bar.total or 0) - self.bar.n - coming)) if self.eta is not None else ""
        self.bar.set_postfix_str(", ".join(p for p in (self.where, eta) if p), refresh=False)

    def close(self) -> None:
        """Leave the bar's last state on the screen."""
        self.bar.close()


class WorkBar:
    """A bar for long work that is not a run's chunks (a skill fit's simulated throws, a tuner's
    trials, fights thrown in full physics): counted as it goes, with tqdm's time left from the rate so
    far, so that no command sits silent. Shown on stderr, only when `enabled` and once the work has
    taken `after_s` (quick work prints nothing). `lazy`: nothing at all until `start()` (or the first
    update), for work whose input is still checked after the bar is made: a refused input stays one line."""

    def __init__(
        self,
        total: int | None,
        unit: str,
        desc: str,
        enabled: bool = True,
        after_s: float = 1.0,
        lazy: bool = False,
    ) -> None:
        self.total, self.unit, self.desc, self.enabled, self.after_s = total, unit, desc, enabled, after_s
        self._bar: Any = None
        self._shown = 0.0  # when `status` last redrew the bar
        if not lazy:
            self.start()

    @property
    def bar(self) -> Any:
        """The tqdm bar (made now if it was not yet)."""
        self.start()
        return self._bar

    def start(self) -> None:
        """The work begins: the bar exists from now on (its clock starts)."""
        if self._bar is None:
            from tqdm.auto import tqdm

            self._bar = tqdm(
                total=self.total,
                unit=self.unit,
                desc=self.desc,
                disable=not self.enabled,
                file=sys.stderr,
                dynamic_ncols=True,
                delay=self.after_s,
                mininterval=0.5,
                # every update may redraw (at most every 0.5 s): tqdm's adaptive count would skip redraws
                # for as many updates as came in half a second, and a few slow ones after fast ones
                # (bench: chunks, then naive throws) would sit silent
                miniters=1,
            )

    def update(self, n: int = 1) -> None:
        """`n` more units done."""
        self.bar.update(n)

    def status(self, text: str) -> None:
        """What the work is doing between its units (an aim solved between a fit's throws), shown after
        the counts and redrawn at most every 0.5 s; "" clears it."""
        bar = self.bar
        bar.set_postfix_str(text, refresh=False)
        now = time.monotonic()
        if not text or now - self._shown >= 0.5:
            self._shown = now
            bar.refresh()

    def aiming(self, done: int, most: int) -> None:
        """An aim solve's observer (`AimSolver.progress`): its reference throws, on this bar."""
        self.status("" if done >= most else f"aiming: reference throw {done + 1} of at most {most}")

    def add(self, more: int) -> None:
        """The work grew by `more` units (a second pass was needed)."""
        self.bar.total = (self.bar.total or 0) + more
        self.bar.refresh()

    def close(self) -> None:
        """The work is done: the bar ends at what was done (nothing is shown if it never started)."""
        if self._bar is not None:
            self._bar.total = self._bar.n
            self._bar.close()


class Elapsed:
    """A line for work of unknown length (a validation check: seconds to minutes), whose seconds count
    on a terminal every half second until `done` replaces it; elsewhere (a pipe, a log) the line once."""

    def __init__(self, stream: Any = None) -> None:
        self.stream = stream
        self._stop: threading.Event | None = None
        self._thread: threading.Thread | None = None

    def start(self, text: str) -> None:
        """The work begins: show `text` (and, on a terminal, its elapsed seconds after it)."""
        self.done()
        out = self.stream or sys.stdout
        if not out.isatty():
            print(text, file=out, flush=True)
            return
        t0 = time.monotonic()
        stop = self._stop = threading.Event()
        out.write(text)
        out.flush()

        def count() -> None:
            while not stop.wait(0.5):
                out.write(f"\r{text}  {time.monotonic() - t0:.0f} s")
                out.flush()

        self._thread = threading.Thread(target=count, name="dfsim-elapsed", daemon=True)
        self._thread.start()

    def done(self) -> None:
        """The work is over: on a terminal the line is cleared for what follows (the result's line)."""
        if self._thread is not None and self._stop is not None:
            self._stop.set()
            self._thread.join()
            self._thread = self._stop = None
            out = self.stream or sys.stdout
            out.write("\r\033[K")
            out.flush()


class Steps:
    """The phases after a run's bar (the records, figures, reports, replays for report.html), one
    line each on stderr as it starts, numbered, so the minute after "100 %" is not spent in silence."""

    def __init__(self, total: int, enabled: bool = True) -> None:
        self.total, self.enabled, self.done = total, enabled, 0

    def start(self, what: str) -> None:
        """The next phase begins."""
        self.done += 1
        if self.enabled:
            sys.stderr.write(f"dfsim: finishing [{self.done}/{self.total}]: {what}\n")
            sys.stderr.flush()

    def part(self, what: str) -> None:
        """A part of the phase under way begins (a figure: seconds each, so a run of many cells would
        otherwise draw its pages in one long silence), said indented under the phase's line."""
        if self.enabled:
            sys.stderr.write(f"dfsim:   {what}\n")
            sys.stderr.flush()
