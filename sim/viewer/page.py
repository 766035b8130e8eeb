"""One self-contained HTML page: vendored three.js, the viewer script and the data, all inline.

Why packed: three.js alone is ~690 kB of minified JavaScript. Each inline script is stored
gzip-compressed and base64-encoded and unpacked in the browser with the standard
`DecompressionStream` (Chrome/Edge 80+, Firefox 113+, Safari 16.4+), which cuts a replay page to about
a third. Nothing is fetched at view time: the page works from a file, offline, and can be mailed.
"""

from __future__ import annotations

import base64
import gzip
import html
import json
from functools import lru_cache
from importlib import resources
from typing import Any

THREE_VERSION = "0.170.0"


def _read(*parts: str) -> str:
    return resources.files("sim.viewer").joinpath(*parts).read_text(encoding="utf-8")


def pack(text: str) -> str:
    """gzip + base64 (mtime 0, so the same input always gives the same page)."""
    return base64.b64encode(gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)).decode("ascii")


@lru_cache(maxsize=1)
def _vendor() -> tuple[str, str, str]:
    return (
        pack(_read("vendor", "three.module.min.js")),
        pack(_read("vendor", "OrbitControls.js")),
        pack(_read("static", "viewer.js")),
    )


BOOT = r"""
(function () {
  const fail = (msg) => {
    document.body.dataset.state = 'error';
    const box = document.getElementById('errorbox');
    box.textContent += (box.textContent ? '\n' : '') + msg;
    document.body.dataset.errors = String(Number(document.body.dataset.errors || 0) + 1);
  };
  window.addEventListener('error', (e) => fail(`error: ${e.message}`));
  window.addEventListener('unhandledrejection', (e) => fail(`error: ${e.reason && e.reason.stack || e.reason}`));
  if (!('DecompressionStream' in window)) {
    fail('This browser cannot unpack the page (no DecompressionStream): open it in a current Chrome, Edge, Firefox or Safari.');
    return;
  }
  const unpack = async (id) => {
    const bin = atob(document.getElementById(id).textContent.trim());
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    return new Response(stream).text();
  };
  const url = (code) => URL.createObjectURL(new Blob([code], { type: 'text/javascript' }));
  const link = (code, map) => code.replace(/from\s*(['"])(three|orbit)\1/g, (m, q, name) => `from '${map[name]}'`);
  (async () => {
    const three = url(await unpack('lib-three'));
    const orbit = url(link(await unpack('lib-orbit'), { three }));
    const viewer = url(link(await unpack('lib-viewer'), { three, orbit }));
    const data = JSON.parse(await unpack('dfsim-data'));
    const mod = await import(viewer);
    mod.main(data);
  })().catch((e) => fail(`error: ${e && e.stack || e}`));
})();
"""  # noqa: E501 - the boot script as the browser reads it


def page_html(title: str, body: str, data: dict[str, Any], subtitle: str = "") -> str:
    """The whole page: `body` is trusted HTML built by this package (escape any user text in it);
    it must contain `<div id="viewer">` where the 3-D view goes."""
    three, orbit, viewer = _vendor()
    blob = pack(json.dumps(data, separators=(",", ":"), allow_nan=False))
    css = _read("static", "viewer.css")
    sub = f"<p>{html.escape(subtitle)}</p>" if subtitle else ""
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="dfsim">
<title>{html.escape(title)}</title>
<style>{css}</style>
</head>
<body data-state="loading">
<header><h1>{html.escape(title)}</h1>{sub}</header>
<div id="errorbox" class="errorbox" role="alert"></div>
<main>
{body}
</main>
<footer><p>Made by dfsim. 3-D drawing: three.js {THREE_VERSION} (MIT licence, © 2010-2024 three.js authors), inlined.
Drag to orbit, right-drag to pan, wheel to zoom; the page works offline. Add <code>#autoplay</code>,
<code>#t=SECONDS</code>, <code>#speed=0.25</code> or <code>#view=top</code> to the address to start that way.</p></footer>
<script type="application/gzip-base64" id="lib-three">{three}</script>
<script type="application/gzip-base64" id="lib-orbit">{orbit}</script>
<script type="application/gzip-base64" id="lib-viewer">{viewer}</script>
<script type="application/gzip-base64" id="dfsim-data">{blob}</script>
<script>{BOOT}</script>
</body></html>
"""  # noqa: E501 - the page as the browser reads it
