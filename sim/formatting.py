"""How interval estimates are written in reports (report.md, report.html, fight reports): one format."""

from __future__ import annotations


def rate_text(r: dict | None) -> str:
    """A rate with its interval, in percent: "52.4 % [48.0, 56.8]" ("–" when there is none)."""
    if not r or r.get("rate") is None:
        return "–"
    return f"{100 * r['rate']:.1f} % [{100 * r['lo']:.1f}, {100 * r['hi']:.1f}]"


def estimate_text(e: dict | None, scale: float = 1.0, signed: bool = False) -> str:
    """A value with its interval ("–" for a missing end), scaled, optionally with a sign."""
    if not e or e.get("value") is None:
        return "–"
    fmt = "{:+.2f}" if signed else "{:.2f}"

    def f(x: float | None) -> str:
        return "–" if x is None else fmt.format(scale * x)

    return f"{f(e['value'])} [{f(e.get('lo'))}, {f(e.get('hi'))}]"
