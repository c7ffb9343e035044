"""Serving the app: a local Panel (Bokeh/Tornado) server, in the background or until Ctrl-C.

:func:`serve` checks that the port is free (0 picks one), allows websocket connections from
the addresses the page is opened at (``localhost``, ``127.0.0.1`` and the bound address on
that port, plus any given), and either starts the server on a background thread and returns
once it accepts connections (``threaded=True``), or runs it in this thread until Ctrl-C
(``threaded=False``, what ``bayescm app`` does). Every browser session gets its own page
(:func:`bayescm.app.layout.create_app` is called per session).
"""

from __future__ import annotations

import contextlib
import errno
import socket
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import panel as pn  # type: ignore[import-not-found, unused-ignore]

from bayescm.app.layout import TITLE, create_app

__all__ = ["AppServer", "check_port", "serve"]

_ANY = ("0.0.0.0", "::", "")


def _family(address: str) -> socket.AddressFamily:
    return socket.AF_INET6 if ":" in address else socket.AF_INET


def check_port(address: str, port: int) -> int:
    """The port to serve on: ``port`` if it is free at ``address``, a free one for 0.

    Raises
    ------
    OSError
        The port is taken or the address cannot be bound; the message says what to do.

    Examples
    --------
    >>> from bayescm.app.server import check_port
    >>> check_port("127.0.0.1", 0) > 0
    True
    """
    if not 0 <= int(port) <= 65535:
        raise OSError(f"port {port} is not a port number (0-65535; 0 picks a free one).")
    try:
        with socket.socket(_family(address), socket.SOCK_STREAM) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((address, int(port)))
            return int(sock.getsockname()[1])
    except OSError as err:
        if err.errno == errno.EADDRINUSE:
            raise OSError(f"port {port} on {address} is already in use; choose another with "
                          "--port (0 picks a free one).") from None
        raise OSError(f"cannot listen on {address}:{port} ({err.strerror or err}); check "
                      "--address (127.0.0.1 serves this computer only).") from None


def _url(address: str, port: int) -> str:
    host = "localhost" if address in _ANY else address
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def _origins(address: str, port: int, extra: Sequence[str]) -> list[str]:
    hosts = ["localhost", "127.0.0.1"] + ([] if address in _ANY or ":" in address else
                                          [address])
    return list(dict.fromkeys([f"{h}:{port}" for h in hosts] + list(extra)))


def _wait_until_listening(address: str, port: int, thread: Any, timeout: float) -> None:
    host = ("::1" if ":" in address else "127.0.0.1") if address in _ANY else address
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not thread.is_alive():
            raise OSError(f"the app's server on {address}:{port} stopped while starting (see "
                          "the messages above).")
        with contextlib.suppress(OSError), socket.create_connection((host, port), timeout=1):
            return
        time.sleep(0.05)
    raise OSError(f"the app's server on {address}:{port} did not start within {timeout:g} s.")


@dataclass
class AppServer:
    """A running (or finished) app server: its address, port and URL, and how to stop it.

    Use as a context manager to stop it on leaving the block.
    """

    address: str
    port: int
    thread: Any = field(default=None, repr=False)
    server: Any = field(default=None, repr=False)

    @property
    def url(self) -> str:
        """The page's address, e.g. ``http://127.0.0.1:5006/``."""
        return _url(self.address, self.port)

    def stop(self) -> None:
        """Stop the server (idempotent)."""
        if self.thread is not None:
            with contextlib.suppress(RuntimeError):
                self.thread.stop()
            self.thread = None
        if self.server is not None:
            with contextlib.suppress(Exception):
                self.server.stop()
            self.server = None

    def __enter__(self) -> AppServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def serve(port: int = 0, address: str = "127.0.0.1", show: bool = False,
          threaded: bool = True, *, websocket_origin: Sequence[str] = (),
          on_start: Callable[[str], None] | None = None, timeout: float = 30.0) -> AppServer:
    """Serve the app on ``address:port``; in the background (``threaded``) or until Ctrl-C.

    Parameters
    ----------
    port : int, default 0
        The port; 0 picks a free one (see the result's ``port``).
    address : str, default "127.0.0.1"
        Where to listen: 127.0.0.1 serves this computer only; ``0.0.0.0`` every network
        interface (then pass the host names people use as ``websocket_origin``).
    show : bool, default False
        Open the page in the default web browser.
    threaded : bool, default True
        Run the server on a background thread and return once it accepts connections (stop it
        with ``.stop()``); False runs it in this thread until Ctrl-C, then returns.
    websocket_origin : sequence of str
        Further ``host:port`` names the page may be opened at.
    on_start : callable, optional
        Called with the page's URL once the server is about to accept connections.
    timeout : float, default 30
        Seconds to wait for a background server to start.

    Returns
    -------
    AppServer
        ``.port`` (the real port), ``.url`` and ``.stop()``.

    Raises
    ------
    OSError
        The port is in use or the address cannot be bound (the message says what to do).

    Examples
    --------
    >>> import urllib.request
    >>> from bayescm.app import serve
    >>> with serve(port=0) as app:
    ...     urllib.request.urlopen(app.url, timeout=30).status
    200
    """
    port = check_port(address, port)
    options: dict[str, Any] = {
        "port": port, "address": address, "show": show, "title": TITLE, "verbose": False,
        "websocket_origin": _origins(address, port, websocket_origin)}
    result = AppServer(address, port)
    if threaded:
        result.thread = pn.serve(create_app, threaded=True, **options)
        try:
            _wait_until_listening(address, port, result.thread, timeout)
        except OSError:
            result.stop()
            raise
        if on_start is not None:
            on_start(result.url)
        return result
    server = pn.serve(create_app, threaded=False, start=False, **options)
    result.server = server
    if on_start is not None:
        on_start(result.url)
    server.start()
    try:
        server.io_loop.start()  # returns on Ctrl-C (Panel's SIGINT handler stops the loop)
    except KeyboardInterrupt:
        pass
    finally:
        result.stop()
    return result
