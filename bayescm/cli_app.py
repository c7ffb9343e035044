"""The ``bayescm app`` command: serve the web app on this computer until Ctrl-C.

``bayescm app [--port 5006] [--address 127.0.0.1] [--no-show]`` prints the page's address,
opens it in the browser (unless ``--no-show``) and serves until Ctrl-C. Without Panel it exits
with code 2 and one line saying how to install it; a port in use does the same. Panel is
imported only when the command runs, so ``bayescm --help`` and the other commands never
need it.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from bayescm.cli_common import UsageError
from bayescm.core.numtext import whole_from_text

__all__ = ["add_parser", "run"]

DEFAULT_PORT = 5006
"""The port ``bayescm app`` listens on unless told otherwise (Panel's usual one)."""


def _port(text: str) -> int:
    try:
        value = whole_from_text(text, 65535)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (0-65535; 0 picks a "
                                         "free one)") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text} is not a port number (0-65535; 0 picks a "
                                         "free one)")
    return value


def add_parser(sub: Any) -> None:
    """Add the ``app`` command to the subparsers ``sub`` of the ``bayescm`` parser."""
    p = sub.add_parser(
        "app", help="the web app: enter a matrix, see the posteriors (needs bayescm[app])",
        description="Serve the bayescm web app on this computer (Panel): enter a confusion "
                    "matrix, choose priors, see each metric's posterior; plan sample sizes, "
                    "compare classifiers, draw ROC curves. Ctrl-C stops it. Install with: "
                    "pip install 'bayescm[app]'.")
    p.add_argument("--port", type=_port, default=DEFAULT_PORT,
                   help=f"port to listen on (default {DEFAULT_PORT}; 0 picks a free one)")
    p.add_argument("--address", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this computer only; "
                        "0.0.0.0 for the network, with --allow-websocket-origin)")
    p.add_argument("--no-show", action="store_true", help="do not open a web browser")
    p.add_argument("--allow-websocket-origin", nargs="+", default=[], metavar="HOST:PORT",
                   help="further host:port names the page is opened at (behind a proxy or "
                        "from other computers)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """The ``app`` command: check Panel, serve until Ctrl-C."""
    from bayescm.app import PANEL_HINT, panel_available

    if not panel_available():
        raise UsageError(f"the app needs Panel, which is not installed: {PANEL_HINT}")
    from bayescm.app.server import serve

    def started(url: str) -> None:
        print(f"bayescm app: serving on {url} (Ctrl-C stops it)", flush=True)
        if args.address not in ("127.0.0.1", "localhost", "::1"):
            print(f"bayescm app: note: listening on {args.address}, so other computers that "
                  "can reach this one can use the app", file=sys.stderr, flush=True)

    try:
        serve(args.port, args.address, show=not args.no_show, threaded=False,
              websocket_origin=args.allow_websocket_origin, on_start=started)
    except OSError as err:
        raise UsageError(str(err)) from None
    except KeyboardInterrupt:
        pass
    print("bayescm app: stopped", file=sys.stderr)
    return 0
