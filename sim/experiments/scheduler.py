"""A Dask scheduler address: checked as input, then contacted with every phase bounded in time.

Why: distributed's Client bounds only the TCP connect; it then waits without limit for the peer's
handshake and decodes whatever frames arrive (a peer that accepts and never speaks hangs a run, one
that sends garbage raises struct.error or asks for exabytes). So the scheduler is first greeted here,
with one deadline over connect, handshake and the scheduler's `identity` reply, and the Client is
made only for a peer that answered as a Dask scheduler; making the Client and asking it for the
workers each have a deadline of their own too (a peer can greet and then fall silent). Trust: see
docs/experiments.md ("What a Dask
scheduler can do"): this checks faults, not attacks.
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from sim.errors import SpecError

CONNECT_TIMEOUT_S = 10  # one deadline for connect + handshake + first reply of a scheduler
PROTOCOLS = ("tcp", "tls")
T = TypeVar("T")
_HOST = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)$")


def scheduler_address(text: str) -> str:
    """`text` if it is tcp:// or tls://HOST:PORT with a port in 1..65535; SpecError naming --scheduler
    otherwise (an empty address is not "no scheduler": that is leaving the option out)."""

    def bad(why: str) -> SpecError:
        return SpecError(
            "command line",
            "--scheduler",
            f"'{text}' is not a Dask scheduler address like tcp://HOST:PORT or tls://HOST:PORT ({why})",
        )

    if not isinstance(text, str) or not text.strip():
        raise bad("empty; leave --scheduler out for a local cluster")
    protocol, sep, loc = text.partition("://")
    if not sep or protocol not in PROTOCOLS:
        raise bad(f"the protocol must be {' or '.join(p + '://' for p in PROTOCOLS)}")
    host, colon, port = loc.rpartition(":")
    if not colon or not port.isdigit():
        raise bad("no port number")
    if not 1 <= int(port) <= 65535:
        raise bad(f"port {port} is not in 1..65535")
    if not _HOST.match(host):
        raise bad("no host name" if not host else f"'{host}' is not a host name")
    return text


class Deadline:
    """One time limit over every phase of connecting (CONNECT_TIMEOUT_S from its creation)."""

    def __init__(self, seconds: float | None = None) -> None:
        self.seconds = CONNECT_TIMEOUT_S if seconds is None else seconds
        self.at = time.monotonic() + self.seconds

    def left(self) -> float:
        """Seconds left (at least a small positive number: a phase given 0 s would not even start)."""
        return max(0.05, self.at - time.monotonic())


def greet(address: str, security: Any = None, deadline: Deadline | None = None) -> None:
    """Contact the scheduler at `address` (already checked) and ask who it is; OSError in one line if
    it cannot be reached, is silent, sends what is not Dask, or is not a scheduler, all within the
    deadline (CONNECT_TIMEOUT_S). Runs in its own thread and event loop, so it works under a running
    loop too."""
    args = security.get_connection_args("client") if security is not None else {}
    deadline = deadline or Deadline()
    reply = within_deadline(lambda: asyncio.run(_identity(address, args, deadline.left())), address, deadline)
    kind = reply.get("type") if isinstance(reply, dict) else None
    if kind != "Scheduler":
        raise OSError(
            f"{address} is not a Dask scheduler (--scheduler): it says it is "
            f"{kind if isinstance(kind, str) else 'nothing Dask knows'}"
        )


def within_deadline(call: Callable[[], T], address: str, deadline: Deadline) -> T:
    """`call()`, one phase of connecting to the scheduler at `address` (the greeting, making the Client,
    asking for its workers), or OSError in one line: silent past CONNECT_TIMEOUT_S, not reachable, or
    answering what Dask does not expect. The call runs in a daemon thread, so one left waiting on a
    silent peer neither blocks the caller nor keeps dfsim alive."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = call()
        except BaseException as exc:  # every failure of the peer, reported below in one line
            outcome["error"] = exc

    thread = threading.Thread(target=run, name="dfsim-scheduler-connect", daemon=True)
    thread.start()
    thread.join(deadline.left())
    exc = outcome.get("error")
    if thread.is_alive() or isinstance(exc, (TimeoutError, asyncio.TimeoutError)):
        raise OSError(
            f"the Dask scheduler at {address} did not answer within {deadline.seconds:g} s (--scheduler)"
        )
    if isinstance(exc, SpecError):
        raise exc
    if isinstance(exc, OSError) and not _is_comm_closed(exc):
        raise OSError(
            f"cannot reach the Dask scheduler at {address} (--scheduler): {exc.strerror or _short(exc)}"
        )
    if exc is not None:
        raise OSError(f"{address} did not answer as a Dask scheduler (--scheduler): {_short(exc)}")
    return outcome["value"]


async def _identity(address: str, connection_args: dict, timeout: float) -> Any:
    """The peer's answer to Dask's `identity` request (the handshake first, as every Dask comm does)."""
    from distributed.comm import connect

    async def talk() -> Any:
        comm = await connect(address, timeout=timeout, **connection_args)
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    return await asyncio.wait_for(talk(), timeout)


def _is_comm_closed(exc: BaseException) -> bool:
    """distributed's CommClosedError is an OSError, but it means the peer hung up mid-conversation."""
    return type(exc).__name__ in ("CommClosedError", "FatalCommClosedError")


def _short(exc: BaseException) -> str:
    """An exception as a short phrase: its type, and its message's first line if short."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:120]}" if text else type(exc).__name__
