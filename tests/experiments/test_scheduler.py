"""A --scheduler that is malformed, silent or not Dask costs one line and a bounded wait, never a hang
or a traceback: bad addresses are bad input (exit 2), peers that fail are the environment (exit 1)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest

pytest.importorskip("dask.distributed")

from sim.cli.main import main  # noqa: E402
from sim.experiments import scheduler  # noqa: E402

TOML = 'name = "sched"\nseed = 1\nthrows = 2\nchunk_throws = 2\n'
TIMEOUT_S = 2


@pytest.fixture
def exp_file(tmp_path):
    p = tmp_path / "sched.toml"
    p.write_text(TOML)
    return p


@pytest.fixture
def server() -> Iterator:
    """Start local servers on 127.0.0.1 that run `talk(conn)` in a thread for each connection."""
    sockets: list[socket.socket] = []

    def start(talk) -> str:
        srv = socket.socket()
        srv.bind(("127.0.0.1", 0))
        srv.listen(8)
        sockets.append(srv)

        def serve() -> None:
            while True:
                try:
                    conn, _ = srv.accept()
                except OSError:
                    return
                sockets.append(conn)
                threading.Thread(target=talk, args=(conn,), daemon=True).start()

        threading.Thread(target=serve, daemon=True).start()
        return f"tcp://127.0.0.1:{srv.getsockname()[1]}"

    yield start
    for s in sockets:
        s.close()


@pytest.fixture
def peer(server):
    """Servers that accept and then send `payload` (b"": never speak)."""

    def start(payload: bytes) -> str:
        def talk(conn: socket.socket) -> None:
            if payload:
                try:
                    conn.sendall(payload)
                except OSError:
                    pass

        return server(talk)

    return start


def _run(exp_file, tmp_path, capsys, address: str, executor: str = "dask") -> tuple[int, str, float]:
    out = tmp_path / "out"
    t0 = time.monotonic()
    code = main(["run", str(exp_file), "--out", str(out), "--quiet", "--executor", executor,
                 "--scheduler", address])
    took = time.monotonic() - t0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert not out.exists()
    return code, err[0], took


@pytest.mark.parametrize("payload", [
    b"",                                                # accepts, never speaks
    b"\xff" * 64,                                       # garbage frames
    b"\x07\x00\x00\x00\x00\x00\x00\x60" + b"\xff" * 64,  # frame lengths asking for exabytes
    b"\x01",                                            # a frame header cut short, then silence
])
def test_a_peer_that_is_not_a_scheduler_is_an_environment_fault_in_bounded_time(
        peer, exp_file, tmp_path, capsys, monkeypatch, payload):
    monkeypatch.setattr(scheduler, "CONNECT_TIMEOUT_S", TIMEOUT_S)
    code, line, took = _run(exp_file, tmp_path, capsys, peer(payload))
    assert code == 1 and "--scheduler" in line and "Traceback" not in line, line
    assert took < TIMEOUT_S + 8, took


@pytest.mark.parametrize("address, words", [
    ("", "empty"),
    ("   ", "empty"),
    ("tcp://127.0.0.1:99999", "port 99999 is not in 1..65535"),
    ("tcp://127.0.0.1:0", "port 0"),
    ("tcp://:8786", "no host name"),
    ("tcp://host", "no port"),
    ("ucx://host:8786", "protocol"),
    ("host:8786", "protocol"),
])
def test_malformed_addresses_are_bad_input(exp_file, tmp_path, capsys, address, words):
    code, line, _ = _run(exp_file, tmp_path, capsys, address)
    assert code == 2 and "--scheduler" in line and words in line, line


def test_an_empty_scheduler_is_not_a_local_cluster(exp_file, tmp_path, capsys):
    code, line, _ = _run(exp_file, tmp_path, capsys, "", executor="local")
    assert code == 2 and "--scheduler" in line, line


def test_a_real_scheduler_answers_the_greeting_and_a_worker_does_not():
    import distributed

    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp", host="127.0.0.1",
                                  dashboard_address=None,
                                  scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"},
                                  worker_dashboard_address="127.0.0.1:0") as cluster:
        scheduler.greet(cluster.scheduler_address)  # it says it is a Scheduler: no exception
        worker = next(iter(cluster.workers.values())).address
        with pytest.raises(OSError, match="is not a Dask scheduler"):
            scheduler.greet(worker)


def _dask_frame(msg) -> bytes:
    """One message as distributed's TCP comm frames it: 8-byte length, frames prelude, frames."""
    import struct

    from distributed.protocol import dumps
    from distributed.protocol.utils import pack_frames_prelude

    frames = [bytes(f) for f in dumps(msg)]
    head = pack_frames_prelude(frames)
    return struct.pack("Q", len(head) + sum(map(len, frames))) + head + b"".join(frames)


def _read_dask_frame(conn: socket.socket):
    import struct

    from distributed.protocol import loads
    from distributed.protocol.utils import unpack_frames

    def exactly(n: int) -> bytes:
        buf = b""
        while len(buf) < n:
            part = conn.recv(n - len(buf))
            if not part:
                raise EOFError
            buf += part
        return buf

    (n,) = struct.unpack("Q", exactly(8))
    frames, extra = unpack_frames(memoryview(exactly(n)), partial=True)
    return loads([bytes(f) for f in frames] + [exactly(k) for k in extra], deserialize=False)


@pytest.fixture
def greeter(server):
    """A fake scheduler: on every connection it does Dask's handshake, and it answers the first
    `answers` requests over all connections as a scheduler would (identity: a Scheduler with one
    worker; register-client: the stream starts), then reads on and never answers again."""

    def start(answers: int) -> str:
        left = [answers]
        worker = {"tcp://127.0.0.1:1": {"nthreads": 1}}

        def talk(conn: socket.socket) -> None:
            try:
                conn.sendall(_dask_frame({"compression": None, "python": (3, 11, 0), "pickle-protocol": 5}))
                _read_dask_frame(conn)
                while True:
                    msg = _read_dask_frame(conn)
                    op = msg.get("op") if isinstance(msg, dict) else None
                    if left[0] <= 0 or op not in ("identity", "register-client"):
                        continue
                    left[0] -= 1
                    reply = ({"type": "Scheduler", "id": "fake", "workers": worker} if op == "identity"
                             else [{"op": "stream-start"}])
                    conn.sendall(_dask_frame(reply))
            except (EOFError, OSError):
                return

        return server(talk)

    return start


@pytest.mark.parametrize("answers, phase", [
    (1, "greets, then the Client's handshake gets no identity"),
    (2, "greets and tells who it is, then never registers the client"),
    (3, "registers the client, then never says which workers it has"),
])
def test_a_scheduler_that_greets_and_then_falls_silent_is_given_up_in_bounded_time(greeter, monkeypatch,
                                                                                    answers, phase):
    """Every phase of connecting is inside one deadline: the greeting, the Client, asking for workers."""
    from sim.experiments.executor import DaskExecutor

    monkeypatch.setattr(scheduler, "CONNECT_TIMEOUT_S", TIMEOUT_S)
    address = greeter(answers)
    outcome: dict = {}

    def connect() -> None:
        try:
            outcome["executor"] = DaskExecutor(address)
        except BaseException as exc:
            outcome["error"] = exc

    t0 = time.monotonic()
    thread = threading.Thread(target=connect, daemon=True)
    thread.start()
    thread.join(TIMEOUT_S + 20)
    took = time.monotonic() - t0
    assert not thread.is_alive(), f"{phase}: still connecting after {took:.0f} s"
    exc = outcome.get("error")
    assert isinstance(exc, OSError) and f"within {TIMEOUT_S} s" in str(exc) and address in str(exc), (phase, exc)
    assert took < TIMEOUT_S + 6, (phase, took)
