"""The studio's web server: Python's own ThreadingHTTPServer, bound to 127.0.0.1 only.

What it refuses, each with one JSON line `{"error": ...}` and never a traceback page: a Host header
that is not this address (a page elsewhere reaching in through DNS rebinding), a POST that is not
JSON (a cross-site form cannot send one without asking first), a body over `MAX_BODY` (413), a bad or
unknown field (400), an unknown path (404). Files served: the page's own static files, by name from a
fixed list, and replay pages it made; nothing is read from a path a request names.
"""

from __future__ import annotations

import errno
import json
import socket
import sys
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from sim.errors import ApiError, SpecError
from sim.studio.api import GET_ROUTES, POST_ROUTES, Studio

HOST = "127.0.0.1"
MAX_BODY = 64 * 1024
# the page runs only its own script and style, and talks only to this server
CSP = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'"
STATIC = {  # URL path -> (package file, content type)
    "/": ("index.html", "text/html; charset=utf-8"),
    "/index.html": ("index.html", "text/html; charset=utf-8"),
    "/studio.js": ("studio.js", "text/javascript; charset=utf-8"),
    "/studio.css": ("studio.css", "text/css; charset=utf-8"),
}


def static_file(name: str) -> bytes:
    """One of the page's files, from the package data."""
    return resources.files("sim.studio").joinpath("static", name).read_bytes()


class StudioServer(ThreadingHTTPServer):
    """The HTTP server of one studio (`studio` holds the state)."""

    daemon_threads = True
    # SO_REUSEADDR: a restarted studio gets its port back at once; a second listener is still refused
    allow_reuse_address = True

    def __init__(self, studio: Studio, port: int = 0, log: bool = False) -> None:
        self.studio = studio
        self.log = log
        super().__init__((HOST, port), Handler)

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.server_address[1]}/"


def open_server(studio: Studio, port: int = 0, log: bool = False) -> StudioServer:
    """Bind the server (port 0: a free one); a port in use is the command line's fault (one line)."""
    try:
        return StudioServer(studio, port, log)
    except OSError as exc:
        if exc.errno in (errno.EADDRINUSE, errno.EACCES):
            what = (
                "is in use (another studio or program listens there)"
                if exc.errno == errno.EADDRINUSE
                else ("is not allowed for this user")
            )
            raise SpecError("command line", "--port", f"{port} {what}") from None
        raise


class Handler(BaseHTTPRequestHandler):
    """One request: static files, the JSON API, replay pages; every refusal one JSON line."""

    server: StudioServer
    protocol_version = "HTTP/1.1"
    server_version = "dfsim-studio"
    sys_version = ""

    # ---- plumbing ----
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        """Requests are printed only with `dfsim studio --log`."""
        if self.server.log:
            sys.stderr.write(f"studio: {self.address_string()} {format % args}\n")

    def _send(self, status: int, body: bytes, ctype: str, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, data: Any) -> None:
        body = json.dumps(data, allow_nan=False, default=str).encode()
        self._send(status, body, "application/json")

    def _error(self, status: int, message: str) -> None:
        self._json(status, {"error": " ".join(str(message).split())[:500]})

    def _host_ok(self) -> bool:
        host = (self.headers.get("Host") or "").strip().lower()
        port = self.server.server_address[1]
        return host in (f"{HOST}:{port}", f"localhost:{port}")

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The base class's malformed-request answers, as one JSON line instead of an HTML page."""
        try:
            self.close_connection = True
            self._error(code, message or HTTPStatus(code).phrase)
        except OSError:
            pass

    def _guard(self, fn: Any) -> None:
        try:
            if not self._host_ok():
                self.close_connection = True
                return self._error(403, "the studio answers only at its own 127.0.0.1 address")
            fn()
        except ApiError as exc:
            self._error(exc.status, exc.message)
        except SpecError as exc:
            self._error(400, f"{exc.field}: {exc.problem}" if exc.field else exc.problem)
        except (BrokenPipeError, ConnectionResetError):
            pass
        except Exception as exc:  # a fault of the studio: one line, the traceback on the terminal
            import traceback

            traceback.print_exc()
            try:
                self._error(500, f"internal error ({type(exc).__name__}: {exc})")
            except OSError:
                pass

    # ---- methods ----
    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        """GET: static files, API reads, replay pages."""
        self._guard(self._get)

    def do_HEAD(self) -> None:  # noqa: N802
        """HEAD: as GET, without the body."""
        self._guard(self._get)

    def do_POST(self) -> None:  # noqa: N802
        """POST: the API's actions (JSON bodies only)."""
        self._guard(self._post)

    def _get(self) -> None:
        url = urlsplit(self.path)
        path = url.path
        studio = self.server.studio
        if path in STATIC:
            name, ctype = STATIC[path]
            return self._send(200, static_file(name), ctype, {"Content-Security-Policy": CSP})
        if path in GET_ROUTES:
            query = dict(parse_qsl(url.query, keep_blank_values=True))
            return self._json(200, getattr(studio, GET_ROUTES[path])(query))
        if path.startswith("/api/job/"):
            return self._json(200, studio.job(path.removeprefix("/api/job/")))
        if path.startswith("/replay/"):
            page = studio.replay_page(path.removeprefix("/replay/"))
            if page is None:
                raise ApiError(404, f"no replay page {path}")
            return self._send(200, page.encode(), "text/html; charset=utf-8")
        raise ApiError(404, f"nothing at {path}")

    def _post(self) -> None:
        path = urlsplit(self.path).path
        route = POST_ROUTES.get(path)
        length_text = self.headers.get("Content-Length")
        if self.headers.get("Transfer-Encoding"):
            self.close_connection = True
            raise ApiError(411, "send the body with a Content-Length")
        try:
            length = int(length_text or 0)
        except ValueError:
            self.close_connection = True
            raise ApiError(400, "Content-Length is not a number") from None
        if length > MAX_BODY:
            self.close_connection = True  # the body is not read: the connection cannot be reused
            raise ApiError(413, f"request body of {length} bytes refused (at most {MAX_BODY})")
        raw = self.rfile.read(length) if length > 0 else b""
        if route is None:
            raise ApiError(404, f"nothing to post at {path}")
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ctype != "application/json":
            raise ApiError(415, "send the body as application/json")
        try:
            body = json.loads(raw.decode("utf-8")) if raw else {}
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise ApiError(400, f"the body is not JSON ({str(exc).splitlines()[0][:120]})") from None
        self._json(200, getattr(self.server.studio, route)(body))


def port_free(port: int) -> bool:
    """Whether nothing listens on 127.0.0.1:port (a quick check before a long start)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        return s.connect_ex((HOST, port)) != 0
