"""What every command shares: the one-line-error parser, scenario options, value parsing, output."""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sim.errors import DuplicateKey, SpecError

if TYPE_CHECKING:  # the specs are imported by the commands that build a scenario, not by `dfsim --help`
    from sim.specs.scenario import Scenario

EXIT_BAD_INPUT = 2
EXIT_FAULT = 1
EXIT_NO_ANSWER = 3  # a well-posed question with no answer in the range asked (`dfsim tune`: not bracketed)
EXIT_INTERRUPTED = 130  # Ctrl-C (128 + SIGINT); another stop signal gives 128 + its number


MAX_SEED = 2**63 - 1  # seeds and throw indices are stored as 64-bit integers


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        """Print the usage error as one `dfsim: ...` line on stderr and exit with EXIT_BAD_INPUT (2)."""
        sys.stderr.write(f"dfsim: {' '.join(message.split())}\n")
        raise SystemExit(EXIT_BAD_INPUT)


def patterns(text: str) -> list[str]:
    """An argparse type: comma-separated names or shell patterns (variants, parameters)."""
    return _listed(text, "names or shell patterns")


def names(text: str) -> list[str]:
    """An argparse type: comma-separated exact names (values to fit)."""
    return _listed(text, "names")


def _listed(text: str, what: str) -> list[str]:
    items = [t.strip() for t in text.split(",")]
    if not text.strip() or not all(items):
        raise argparse.ArgumentTypeError(f"'{text}': give comma-separated {what}")
    return items


def integer(lo: int, hi: int) -> Callable[[str], int]:
    """An argparse type: a whole number in [lo, hi]."""

    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, not {text[:30]!r}") from None
        if v < lo:
            raise argparse.ArgumentTypeError(f"must be at least {lo} (got {text[:30]})")
        if v > hi:
            raise argparse.ArgumentTypeError(f"must be at most {hi} (got {text[:30]})")
        return v

    parse.__name__ = "integer"
    return parse


def number(lo: float, hi: float) -> Callable[[str], float]:
    """An argparse type: a finite number in [lo, hi]."""

    def parse(text: str) -> float:
        try:
            v = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, not {text[:30]!r}") from None
        if not math.isfinite(v) or not lo <= v <= hi:
            raise argparse.ArgumentTypeError(
                f"must be a finite number between {lo:g} and {hi:g} (got {text[:30]})"
            )
        return v

    parse.__name__ = "number"
    return parse


SEED = integer(0, MAX_SEED)  # a root seed
INDEX = integer(0, MAX_SEED)  # a throw's (or flip's) index in its seed's stream


def parse_value(text: str) -> Any:
    """A command-line value as the number or boolean it spells, else the text itself."""
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    return text


def json_or_text(text: str, flag: str, key: str) -> Any:
    """A `--set` value of a fight or a game: the JSON it spells (`2`, `true`, `["a", "b"]`), else the text
    itself; JSON naming a key twice is refused (which value was meant cannot be told)."""
    from sim.specs.datafiles import loads_json

    try:
        return loads_json(text)
    except DuplicateKey as exc:
        raise SpecError("command line", flag, f"{key}: {exc}; give it once") from None
    except (ValueError, RecursionError):
        return text


def split_pair(item: str, flag: str, what: str = "KEY=VALUE") -> tuple[str, str]:
    """One KEY=VALUE item, both parts stripped; a missing '=', an empty key or an empty value (a
    selection of nothing, most often a shell variable that was not set) is refused."""
    if "=" not in item:
        raise SpecError("command line", flag, f"expected {what}, got {item[:60]!r}")
    k, v = (t.strip() for t in item.split("=", 1))
    if not k:
        raise SpecError("command line", flag, f"expected {what}, got {item[:60]!r} (no key before '=')")
    if not v:
        raise SpecError(
            "command line",
            flag,
            f"{k[:80]}: no value after '=' (give {k[:80]}=VALUE, or leave the option out)",
        )
    return k, v


def pairs(items: list[str] | None, flag: str) -> dict[str, Any]:
    """KEY=VALUE options as a dict."""
    out: dict[str, Any] = {}
    for it in items or []:
        k, v = split_pair(it, flag)
        out[k] = parse_value(v)
    return out


def add_scenario_options(p: argparse.ArgumentParser, with_shot: bool = True) -> None:
    """--board, --die, --shot, --skill, --rule, --set and --json."""
    p.add_argument("--board", default="magma", help="board name or TOML path (default: magma)")
    p.add_argument(
        "--die",
        action="append",
        dest="dice",
        help="die name or path; repeat for several dice (default: hero-d8)",
    )
    if with_shot:
        p.add_argument(
            "--shot",
            action="append",
            dest="shots",
            help="shot profile; repeat to combine requirements (default: standard)",
        )
        p.add_argument(
            "--skill",
            default="casual",
            help="skill level: novice, casual, expert or a path (default: casual)",
        )
    p.add_argument("--rule", action="append", metavar="KEY=VALUE", help="rule option, e.g. cocked=miss")
    p.add_argument(
        "--set",
        action="append",
        metavar="PATH=VALUE",
        dest="overrides",
        help="override a setting, e.g. shot.release.distance_mm=900",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")


def scenario_from(args: argparse.Namespace, shots: list[str] | None = None) -> Scenario:
    """The scenario the scenario options describe (argparse stops here: domain code gets specs)."""
    from sim.specs.scenario import Scenario

    return Scenario.build(
        board=args.board,
        dice=args.dice or ["hero-d8"],
        shots=list(shots or getattr(args, "shots", None) or ["standard"]),
        skill=getattr(args, "skill", "casual"),
        rules=pairs(args.rule, "--rule"),
        overrides=pairs(args.overrides, "--set"),
        source="command line",
    )


def human(res: dict) -> str:
    """A throw's JSON as a few readable lines."""
    detail = f": {res['detail']}" if res.get("detail") else ""
    lines = [f"{res['result'].upper()} ({res['reason']}){detail}"]
    if res.get("section"):
        lines.append(f"  section {res['section']} (value {res['value']})")
    cocked = "  [cocked {:.1f} deg]".format(res["tilt_deg"]) if res["cocked"] else ""
    lines.append(f"  face {res['face']}{'  [icon]' if res['icon'] else ''}{cocked}")
    lines.append(f"  damage {res['damage']:g}{'  INSTA-KILL' if res.get('insta_kill') else ''}")
    lines.append(
        "  rest at ({:.1f}, {:.1f}) mm, touching {}".format(
            res["position_mm"][0], res["position_mm"][1], ", ".join(res["touching"]) or "nothing"
        )
    )
    if res.get("requirements"):
        lines.append("  requirements: " + ", ".join(f"{k} {v}" for k, v in res["requirements"].items()))
    if res.get("template"):
        lines.append(f"  template {res['template']}{' (partial)' if res.get('partial_template') else ''}")
    if res.get("seed") is not None:
        lines.append(f"  seed {res['seed']} throw {res['index']}")
    return "\n".join(lines)


class AimProgress:
    """Shows the aim solve on stderr, but only once it has taken `after_s` (a cached aim shows nothing):
    a counter redrawn in place on a terminal, one line otherwise."""

    def __init__(self, after_s: float = 1.0) -> None:
        self.after_s = after_s
        self.t0: float | None = None
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        """A reference throw of the solve is about to start (`done` made, at most `total`; the solve often
        needs fewer: it stops once its choice is decided); `done == total` at the end."""
        import time

        now = time.monotonic()
        if self.t0 is None:
            self.t0 = now
        if now - self.t0 < self.after_s:
            return
        tty = sys.stderr.isatty()
        if tty:
            head = "\rdfsim: aiming the shot (solved once, then cached): "
            if done >= total:
                sys.stderr.write(f"{head}done, {done} reference throws\n")
            else:
                sys.stderr.write(f"{head}reference throw {done + 1} of at most {total}")
        elif not self.shown:
            sys.stderr.write("dfsim: aiming the shot (solved once for this scenario, then cached) ...\n")
        sys.stderr.flush()
        self.shown = True


def bank_options(p: argparse.ArgumentParser, only: str = "") -> None:
    """The throw bank's options, the same on every command that plays games from it (`only`: the words
    that say when they apply, e.g. "with --game: ")."""
    p.add_argument(
        "--bank",
        metavar="DIR",
        help=f"{only}throw bank folder (default: $DFSIM_BANK or ~/.cache/dfsim/throw-bank)",
    )
    p.add_argument(
        "--bank-throws",
        type=integer(1, 1_000_000),
        default=None,
        help=f"{only}throws per bank scenario (default: as many as its hit rate and damage need, "
        "400-4000); an entry holding fewer grows",
    )
    p.add_argument(
        "--workers",
        type=integer(1, 1024),
        help=f"{only}worker processes recording the bank (default: all cores)",
    )


SCHEDULER_HELP = (
    "Dask scheduler address tcp:// or tls://HOST:PORT (default: a local Dask "
    "cluster; one that does not answer as a scheduler within 10 s stops the run, exit 1). "
    "Full trust: whoever runs the scheduler or its workers can run code as you; use only a "
    "cluster you control, over tls:// on a network that is not yours (docs/experiments.md)"
)


def executor_options(p: argparse.ArgumentParser, only: str = "", where: str = "where the work runs") -> None:
    """--executor, --scheduler and the Dask TLS files, the same on `dfsim run` and on every command
    that records a throw bank (`executor_from` reads them back, checked)."""
    p.add_argument(
        "--executor", choices=("local", "dask"), default="local", help=f"{only}{where} (default: local)"
    )
    p.add_argument("--scheduler", help=f"{only}with --executor dask: {SCHEDULER_HELP}")
    p.add_argument("--tls-ca-file", help=f"{only}Dask TLS: CA certificate to check the scheduler with")
    p.add_argument("--tls-cert", help=f"{only}Dask TLS: this client's certificate (PEM)")
    p.add_argument(
        "--tls-key", help=f"{only}Dask TLS: this client's private key (PEM; default: in --tls-cert)"
    )


def executor_from(args: argparse.Namespace) -> tuple[str, str | None, dict[str, str] | None]:
    """(executor, scheduler, security) from `executor_options`, checked before any work: a scheduler
    needs dask and is an address, TLS needs a tls:// scheduler and its files."""
    if args.scheduler is not None:
        if args.executor != "dask":
            raise SpecError("command line", "--scheduler", "needs --executor dask")
        from sim.experiments.scheduler import scheduler_address

        scheduler_address(args.scheduler)
    return args.executor, args.scheduler, tls_files(args)


def executor_given(args: argparse.Namespace) -> str | None:
    """The first of --workers, --executor dask, --scheduler and the TLS files given (None: none)."""
    for flag, value in (
        ("--workers", getattr(args, "workers", None)),
        ("--executor", None if getattr(args, "executor", "local") == "local" else args.executor),
        ("--scheduler", getattr(args, "scheduler", None)),
        ("--tls-ca-file", getattr(args, "tls_ca_file", None)),
        ("--tls-cert", getattr(args, "tls_cert", None)),
        ("--tls-key", getattr(args, "tls_key", None)),
    ):
        if value is not None:
            return flag
    return None


def tls_files(args: argparse.Namespace) -> dict[str, str] | None:
    """The --tls-* options as the runner's `security` dict (None: Dask's own configuration applies)."""
    from pathlib import Path

    given = {"ca_file": args.tls_ca_file, "cert": args.tls_cert, "key": args.tls_key}
    if not any(given.values()):
        return None
    flags = {"ca_file": "--tls-ca-file", "cert": "--tls-cert", "key": "--tls-key"}
    for k in ("ca_file", "cert"):
        if not given[k]:
            raise SpecError("command line", flags[k], "is needed with the other --tls options")
    for k, v in given.items():
        if v and not Path(v).is_file():
            raise SpecError("command line", flags[k], f"file not found: {v}")
    if args.executor != "dask" or not (args.scheduler or "").startswith("tls://"):
        raise SpecError(
            "command line", "--tls-ca-file", "TLS needs --executor dask --scheduler tls://HOST:PORT"
        )
    return {k: str(v) for k, v in given.items() if v}
