"""Where chunks run: a local process pool, or a Dask cluster, behind one small interface.

Why this shape: a chunk of any experiment kind is a pure function of its picklable task (the kind's
worker function and task: sim.experiments.kinds), so any worker can run any chunk in any order and
the records do not change. Workers keep what they build (a PyBullet world per scenario, a fight and
its throw records) per thread, for every later chunk. Results come back to the parent, which alone
writes files, so Dask workers on other machines need no shared disk.

Trust: the parent unpickles what workers return, so a Dask scheduler (and every worker it admits)
can run code in the parent: connect only to a scheduler you control, over TLS (`security`) when
the network is not yours. What comes back is still checked as records of the expected cell and
throw range before it is stored (sim.experiments.integrity), which catches faults, not attacks.
"""

from __future__ import annotations

import functools
import multiprocessing as mp
import os
import queue
import signal
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import BrokenExecutor, ProcessPoolExecutor
from typing import Any

from sim.errors import ChunkFailed
from sim.experiments import scheduler as dask_scheduler

# --------------------------------------------------------------------------------------------
# workers


PARENT_POLL_S = 0.5  # how often a worker checks that the process that started it is still there


def watch_parent(parent: int, poll_s: float = PARENT_POLL_S) -> None:
    """Exit this process once its parent (pid `parent`, told by the parent itself) is gone.

    kill -9 of the run would otherwise leave its workers computing for nobody. The pid comes from
    the parent because a worker still starting up when the parent dies would see init as its parent.
    """

    def watch() -> None:
        while True:
            if os.getppid() != parent:
                os.kill(os.getpid(), signal.SIGKILL)  # no cleanup owed: nobody is left to receive results
            time.sleep(poll_s)

    threading.Thread(target=watch, name="dfsim-parent-watch", daemon=True).start()


def _worker_init(parent: int, warm: tuple[str, ...] = ()) -> None:
    # Ctrl-C goes to the whole process group; only the parent decides what to do about it
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    watch_parent(parent)
    # import what the chunks need (the kind's `warm` modules: the engine costs ~1.5 s) now, in every
    # worker at once, rather than when each worker gets its first chunk
    import importlib

    for name in warm:
        importlib.import_module(name)


# --------------------------------------------------------------------------------------------
# executors


class Executor:
    """Submit tasks (a kind's chunk or preparation tasks: each has `cell` and `chunk`, -1 for a
    preparation); collect finished ones in completion order with `next_result`."""

    workers: int = 1
    name: str = "executor"

    def __init__(self) -> None:
        self._results: queue.Queue = queue.Queue()

    def submit(self, task: Any, fn: Callable[[Any], Any]) -> None:
        """Queue `fn(task)` to run on a worker; its result or failure arrives through `next_result`."""
        raise NotImplementedError

    def next_result(self, timeout: float | None = None) -> tuple[Any, Any]:
        """The next finished chunk; raises queue.Empty on timeout and ChunkFailed if it failed."""
        task, ok, value = self._results.get(timeout=timeout)
        if not ok:
            raise failed(task, value)
        return task, value

    def close(self) -> None:
        """Wait for nothing: stop the workers (running chunks are abandoned)."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


WORKER_DIED = "a worker process died (killed, out of memory, or a crash in native code)"


def failed(task: Any, reason: str) -> ChunkFailed:
    """The ChunkFailed of a task (`reason`: what went wrong on the worker's side)."""
    what = f"chunk {task.chunk}" if task.chunk >= 0 else "preparing"
    return ChunkFailed(f"{what} of cell {task.cell} failed: {reason}", task=task, reason=reason)


def default_workers() -> int:
    """Cores this process may use (its CPU affinity, not the machine's count), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


_SPAWNING = threading.Lock()


class _WorkerProcess(mp.context.SpawnProcess):
    """A spawned worker that does not import the parent's `__main__` script.

    Why: a spawned child normally runs the parent's script again (as `__mp_main__`) before it can
    unpickle its task. Workers run only sim's own functions, so they never need it, and a plain script
    without `if __name__ == "__main__":` (the README's Python example, typed into a file) would
    otherwise start the same experiment again in every worker, which fails on the folder's lock and
    breaks the pool. Only the preparation data of this one child is changed, under a lock."""

    @staticmethod
    def _Popen(process_obj):  # noqa: N802 - multiprocessing's name
        from multiprocessing import popen_spawn_posix, spawn

        with _SPAWNING:
            real = spawn.get_preparation_data

            def without_main(name):
                data = real(name)
                data.pop("init_main_from_path", None)
                data.pop("init_main_from_name", None)
                return data

            spawn.get_preparation_data = without_main
            try:
                return popen_spawn_posix.Popen(process_obj)
            finally:
                spawn.get_preparation_data = real


class _WorkerContext(mp.context.SpawnContext):
    """The 'spawn' start method with _WorkerProcess (no re-run of the parent's script)."""

    Process = _WorkerProcess  # type: ignore[assignment]


def worker_context(start_method: str = "spawn"):
    """The multiprocessing context of local workers: 'spawn' without importing `__main__` (POSIX), or the
    named start method as multiprocessing has it."""
    if start_method == "spawn" and os.name == "posix":
        return _WorkerContext()
    return mp.get_context(start_method)


class LocalExecutor(Executor):
    """A pool of worker processes on this machine (start method 'spawn': no inherited PyBullet state).

    Built on concurrent.futures so that a worker that dies (a crash in native code, the OOM killer)
    fails its chunk with BrokenProcessPool instead of leaving the run waiting forever.
    """

    name = "local"

    def __init__(
        self, workers: int | None = None, start_method: str = "spawn", warm: tuple[str, ...] = ()
    ) -> None:
        super().__init__()
        self.workers = int(workers or default_workers())
        if self.workers < 1:
            raise ValueError("workers must be at least 1")
        self._pool = ProcessPoolExecutor(
            self.workers,
            mp_context=worker_context(start_method),
            initializer=_worker_init,
            initargs=(os.getpid(), tuple(warm)),
        )

    def submit(self, task: Any, fn: Callable[[Any], Any]) -> None:
        """Run `fn(task)` in the process pool; the result is queued for `next_result` when done."""
        try:
            fut = self._pool.submit(fn, task)
        except BrokenExecutor:  # a worker died since the last result came back
            raise failed(task, WORKER_DIED) from None
        fut.add_done_callback(functools.partial(self._done, task))

    def _done(self, task: Any, fut) -> None:
        if fut.cancelled():
            return
        exc = fut.exception()
        if exc is None:
            self._results.put((task, True, fut.result()))
        elif isinstance(exc, BrokenExecutor):  # the pool's words name no process and no cause
            self._results.put((task, False, WORKER_DIED))
        else:
            self._results.put((task, False, f"{type(exc).__name__}: {exc}"))

    def close(self) -> None:
        """Stop at once: pending chunks are cancelled and running ones abandoned (workers are killed)."""
        # concurrent.futures has no public way to stop running work before Python 3.14
        # (terminate_workers); its process table has been `_processes` since 3.2
        procs = list((getattr(self._pool, "_processes", None) or {}).values())
        self._pool.shutdown(wait=False, cancel_futures=True)
        for p in procs:
            if p.is_alive():
                p.kill()
        for p in procs:
            p.join(timeout=10)
        if procs:  # a killed worker leaves its folder of hull files (sim/world/solids.py)
            from sim.world.solids import sweep_folders

            sweep_folders()
        # let the pool's manager thread finish its cleanup now: at interpreter exit concurrent.futures
        # wakes every manager thread, and one still closing its wake-up pipe then races that call into
        # "OSError: Bad file descriptor" printed after an interrupted run (Python 3.11)
        manager = getattr(self._pool, "_executor_manager_thread", None)
        if manager is not None:
            manager.join(timeout=10)


def _parent_watch_plugin():
    """A Dask worker plugin (local clusters only): a worker exits once the run that started it is gone."""
    from distributed.diagnostics.plugin import WorkerPlugin

    class ParentWatch(WorkerPlugin):
        name = "dfsim-parent-watch"

        def __init__(self, parent: int) -> None:
            self.parent = parent

        def setup(self, worker) -> None:
            watch_parent(self.parent)

    return ParentWatch(os.getpid())


def _security(security: Any):
    """A distributed Security from a dict of TLS files ({ca_file, cert, key}); None: Dask's own config."""
    if security is None or not isinstance(security, dict):
        return security
    from distributed.security import Security

    return Security(
        tls_ca_file=security.get("ca_file"),
        tls_client_cert=security.get("cert"),
        tls_client_key=security.get("key"),
        require_encryption=True,
    )


class DaskExecutor(Executor):
    """Chunks on a Dask cluster: the scheduler at `scheduler` (tcp:// or tls://HOST:PORT) or a new local
    cluster.

    Each Dask worker should run one thread (`--nthreads 1`): PyBullet worlds are cached per thread,
    so more threads means more worlds and no speed-up on CPU-bound physics. A scheduler address is
    full trust (see the module docstring). A local cluster listens on 127.0.0.1 only and serves no
    dashboard or information pages; its workers ignore Ctrl-C and exit when this process dies.
    """

    name = "dask"

    def __init__(
        self, scheduler: str | None = None, workers: int | None = None, security: Any = None
    ) -> None:
        super().__init__()
        try:
            import dask
            from dask.distributed import Client, LocalCluster
        except ImportError:
            raise ImportError(
                "the dask executor needs dask[distributed]: pip install 'dfsim[dask]'"
            ) from None
        import logging

        for name in (
            "distributed",
            "distributed.worker",
            "distributed.scheduler",
            "distributed.nanny",
            "distributed.client",
            "distributed.core",
            "distributed.comm",
        ):
            logging.getLogger(name).setLevel(logging.CRITICAL)
        self._cluster = None
        if scheduler is not None:
            address = dask_scheduler.scheduler_address(scheduler)
            deadline = dask_scheduler.Deadline()  # one limit over greeting, Client and asking for workers
            self._client = _connect(Client, address, _security(security), deadline)
            try:  # the last phase of connecting: who works there (a silent peer must not hang it)
                info = dask_scheduler.within_deadline(self._client.scheduler_info, address, deadline)
                self.workers = max(1, sum(w.get("nthreads", 1) for w in _workers(info).values()))
            except BaseException:
                self._client.close(timeout=2)
                raise
            if not _workers(info):
                sys.stderr.write(
                    f"dfsim: the Dask scheduler at {address} has no workers yet; the run starts when "
                    "one joins (Ctrl-C stops it)\n"
                )
        else:
            self.workers = int(workers or default_workers())
            # no HTTP routes: distributed always opens an HTTP listener, this leaves it serving nothing
            quiet_http: dict[str, list] = {
                "distributed.scheduler.http.routes": [],
                "distributed.worker.http.routes": [],
            }
            with dask.config.set(quiet_http), _sigint_ignored():  # workers inherit "ignore Ctrl-C"
                self._cluster = LocalCluster(
                    n_workers=self.workers,
                    threads_per_worker=1,
                    processes=True,
                    host="127.0.0.1",
                    dashboard_address=None,
                    # no dashboard, and its bare HTTP listener on a free port of 127.0.0.1 (not 8787)
                    scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"},
                    silence_logs=logging.CRITICAL,
                    security=_security(security),
                )
                self._client = Client(self._cluster)
                self._client.register_plugin(_parent_watch_plugin())
        self._futures: set = set()

    def submit(self, task: Any, fn: Callable[[Any], Any]) -> None:
        """Run `fn(task)` on the Dask cluster (pure=False: never deduplicated); results and errors are
        queued for `next_result`, cancelled tasks are dropped."""
        fut = self._client.submit(fn, task, pure=False)
        self._futures.add(fut)

        def done(f, t=task):
            self._futures.discard(f)
            if f.status == "finished":
                try:
                    self._results.put((t, True, f.result()))
                except Exception as exc:  # pragma: no cover - result transfer failed
                    self._results.put((t, False, f"{type(exc).__name__}: {exc}"))
            elif f.status == "cancelled":
                return
            else:
                try:
                    err = f.exception()
                except Exception as e:  # pragma: no cover
                    err = e
                self._results.put((t, False, f"{type(err).__name__}: {err}"))

        fut.add_done_callback(done)

    def close(self) -> None:
        """Cancel outstanding tasks and close the client, and the local cluster if this executor started
        one."""
        with _sigint_ignored():  # a second Ctrl-C must not turn the shutdown into tracebacks
            try:
                if self._futures:
                    self._client.cancel(list(self._futures))
                self._client.close()
            finally:
                if self._cluster is not None:
                    self._cluster.close()


def _workers(info: Any) -> dict:
    """The workers of a scheduler's `identity` answer ({} when it lists none, or lists them wrongly)."""
    workers = info.get("workers") if isinstance(info, dict) else None
    return {k: w for k, w in workers.items() if isinstance(w, dict)} if isinstance(workers, dict) else {}


def _connect(client_cls, address: str, security, deadline: dask_scheduler.Deadline):
    """A Client of the scheduler at `address`, or one line why not: a malformed address is bad input
    (SpecError), a scheduler that cannot be reached, stays silent or answers nonsense is the
    environment (OSError). The greeting, and then making the Client, are each bounded in time."""
    kw = {"security": security} if security is not None else {}
    dask_scheduler.greet(address, security, deadline)
    return dask_scheduler.within_deadline(
        lambda: client_cls(address, timeout=f"{deadline.left():.2f}s", **kw), address, deadline
    )


class _sigint_ignored:
    """Ignore Ctrl-C while processes are started (they inherit it) or shut down; main thread only."""

    def __enter__(self) -> None:
        self._old = None
        if threading.current_thread() is threading.main_thread():
            self._old = signal.signal(signal.SIGINT, signal.SIG_IGN)

    def __exit__(self, *exc) -> None:
        if self._old is not None:
            signal.signal(signal.SIGINT, self._old)


def make_executor(
    kind: str = "local",
    workers: int | None = None,
    scheduler: str | None = None,
    security: Any = None,
    warm: tuple[str, ...] = (),
) -> Executor:
    """The executor named on the command line ('local' or 'dask'); ValueError for an unknown kind or a
    scheduler given without dask. `security`: TLS for a Dask scheduler (see DaskExecutor); `warm`:
    modules a local worker imports when it starts."""
    if kind == "local":
        if scheduler is not None:
            raise ValueError("--scheduler needs --executor dask")
        return LocalExecutor(workers, warm=warm)
    if kind == "dask":
        return DaskExecutor(scheduler, workers, security)
    raise ValueError(f"unknown executor '{kind}' (local or dask)")
