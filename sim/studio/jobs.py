"""Background work the page polls: a job runs in a lane's own thread (games in one, physical throws in
another), says how far it is in `progress`, publishes each partial answer in `result`, and stops at the
next batch when cancelled. The page never waits on a request: it starts a job and polls it."""

from __future__ import annotations

import itertools
import queue
import sys
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

from sim.errors import Cancelled, ChunkFailed, SpecError

STATES = ("queued", "running", "done", "cancelled", "error")
KEEP_JOBS = 200  # finished jobs remembered (their last answer stays readable)


def environment_fault(exc: OSError | ChunkFailed) -> str:
    """A fault of the environment in one line, as the command line words it (the file, then why)."""
    if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
        return f"{exc.filename}: {exc.strerror}"
    return " ".join(str(exc).split())[:400] or type(exc).__name__


class Job:
    """One piece of background work and what it has to say so far."""

    _ids = itertools.count(1)

    def __init__(self, kind: str, work: Callable[[Job], None], detail: dict[str, Any] | None = None) -> None:
        self.id = f"{kind}-{next(self._ids)}"
        self.kind = kind
        self.work = work
        self.detail = detail or {}
        self.state = "queued"
        self.progress: dict[str, Any] = {}
        self.result: dict[str, Any] = {}
        self.error = ""
        self.cancel_event = threading.Event()
        self.t0 = time.monotonic()
        self.t_end: float | None = None
        self.events: list[tuple[float, str]] = []  # (seconds since start, what happened): for timing

    def cancel(self) -> None:
        """Ask the job to stop at its next batch."""
        self.cancel_event.set()

    def check(self) -> None:
        """Raise Cancelled when the job was cancelled (called between batches)."""
        if self.cancel_event.is_set():
            raise Cancelled

    def note(self, what: str) -> None:
        """Note what happened, with the seconds since the job was made (the benchmark reads them)."""
        self.events.append((round(time.monotonic() - self.t0, 4), what))

    def snapshot(self) -> dict[str, Any]:
        """What a poll answers: state, progress, the latest answer."""
        now = time.monotonic()
        end = self.t_end if self.t_end is not None else now
        progress = dict(self.progress)
        started = progress.pop("started", None)
        if started is not None:  # work counted in steps: seconds so far, and left at the pace so far
            progress["elapsed_s"] = round(now - started, 1)
            done, of = progress.get("done", 0), progress.get("of", 0)
            if done and of and "left_s" not in progress:  # no estimate of the work's own
                progress["left_s"] = round((now - started) / done * (of - done), 1)
        return {
            "id": self.id,
            "kind": self.kind,
            "state": self.state,
            "progress": progress,
            "result": self.result,
            "error": self.error,
            "elapsed_s": round(end - self.t0, 3),
            "events": self.events[-50:],
        }


class Lane:
    """A thread that runs its jobs one after another."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.queue: queue.Queue[Job | None] = queue.Queue()
        self.current: Job | None = None
        self.thread = threading.Thread(target=self._loop, name=f"studio-{name}", daemon=True)
        self.thread.start()

    def submit(self, job: Job) -> Job:
        """Queue a job behind the lane's others."""
        self.queue.put(job)
        return job

    def _loop(self) -> None:
        while True:
            job = self.queue.get()
            if job is None:
                return
            if job.cancel_event.is_set():
                job.state, job.t_end = "cancelled", time.monotonic()
                continue
            self.current = job
            job.state = "running"
            try:
                job.work(job)
                job.state = "cancelled" if job.cancel_event.is_set() else "done"
            except Cancelled:
                job.state = "cancelled"
            except SpecError as exc:
                job.error, job.state = f"{exc.field}: {exc.problem}" if exc.field else exc.problem, "error"
            except (OSError, ChunkFailed) as exc:  # the environment (a full disk, a worker killed): one
                job.error, job.state = environment_fault(exc), "error"  # line, here and on the terminal
                print(f"dfsim studio: {job.error}", file=sys.stderr, flush=True)
            except Exception as exc:  # a fault: one line on the page, the traceback on the terminal
                traceback.print_exc()
                job.error, job.state = f"internal error ({type(exc).__name__}: {exc})"[:400], "error"
            finally:
                job.t_end = time.monotonic()
                job.progress = {**job.progress, "busy": False}
                self.current = None

    def stop(self, wait_s: float) -> bool:
        """Cancel what runs and what waits, end the thread; True if it ended within `wait_s`."""
        while True:
            try:
                j = self.queue.get_nowait()
            except queue.Empty:
                break
            if j is not None:
                j.cancel()
                j.state = "cancelled"
        if self.current is not None:
            self.current.cancel()
        self.queue.put(None)
        self.thread.join(wait_s)
        return not self.thread.is_alive()


class Jobs:
    """Every job of the studio by id, and the lanes that run them."""

    def __init__(self) -> None:
        self.lanes = {"games": Lane("games"), "throws": Lane("throws")}
        self.jobs: dict[str, Job] = {}
        self.lock = threading.Lock()

    def start(self, lane: str, job: Job, replace: str | None = None) -> Job:
        """Queue a job; `replace`: cancel the jobs of that kind still running or queued first (the
        user moved on)."""
        with self.lock:
            if replace is not None:
                for j in self.jobs.values():
                    if j.kind == replace and j.state in ("queued", "running"):
                        j.cancel()
            self.jobs[job.id] = job
            while len(self.jobs) > KEEP_JOBS:
                old = next(iter(self.jobs))
                if self.jobs[old].state in ("queued", "running"):
                    break
                self.jobs.pop(old)
        return self.lanes[lane].submit(job)

    def get(self, ident: str) -> Job | None:
        """A job by id, or None."""
        with self.lock:
            return self.jobs.get(ident)

    def stop(self, wait_s: float = 10.0) -> bool:
        """Cancel everything; True when every lane ended within `wait_s`."""
        return all([lane.stop(wait_s) for lane in self.lanes.values()])
