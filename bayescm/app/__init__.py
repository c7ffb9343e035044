"""The bayescm web app: confusion matrices to posteriors without writing code.

``bayescm app`` (or :func:`serve`) starts it on a local web server; :func:`create_app` returns
the same page as a Panel layout for a notebook. It needs Panel (``pip install
'bayescm[app]'``); importing this package does not, so ``import bayescm`` never loads Panel.

Tabs: the posterior of each metric of a binary or multiclass confusion matrix (priors, a
deployment prevalence, P(informative/deceptive), downloads, the Python call that reproduces
it), sample-size planning, comparing two classifiers, ROC curves of scores, and item-level
evaluation logs (clusters, repeated attempts, several systems). Modules, one job each:

================  ============================================================================
module            job
================  ============================================================================
parse             reading typed and uploaded text (strictly; nothing is evaluated)
priorspec         the prior forms of a parameter, read with ``bayescm.priors.from_dict``
matrixjob         the matrix tab's analysis as plain data (the documented ``bcm.fit`` call)
figures           bayescm's plots on pyplot-free figures, as PNG, in the app's style
tables            HTML tables with fixed decimals; CSV downloads
controller        the tabs' shared mechanics: inline errors, runs off the event loop, busy state
matrix_inputs     the matrix fields (four cells, or a pasted or uploaded table)
prior_widgets     the prior fields
matrix_tab        the "Confusion matrix" tab
planning_tab      the "Sample size" tab
compare_tab       the "Compare two classifiers" tab
runs_form         its second form: folds, seeds or runs of one procedure, or two compared
scores_tab        the "Scores and ROC" tab
items_tab         the "Evaluation log" tab
correct_tab       the "Imperfect labels" tab: a true prevalence behind an apparent count
audit_form        its second form: a population's metrics from a stratified audit
latent_form       its third form: several tests without a gold standard (Hui-Walter)
layout            the page (header, how to read it, tabs, citation), built per session
server            serving it: a free port, websocket origins, background or blocking
================  ============================================================================
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from importlib import util
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bayescm.app.server import AppServer

__all__ = ["PANEL_HINT", "create_app", "panel_available", "require_panel", "serve"]

PANEL_HINT = "pip install 'bayescm[app]' (or: bash scripts/setup.sh app)"
"""How to install what the app needs."""


def panel_available() -> bool:
    """Whether Panel can be imported (without importing it).

    Examples
    --------
    >>> from bayescm.app import panel_available
    >>> isinstance(panel_available(), bool)
    True
    """
    try:
        return util.find_spec("panel") is not None
    except (ImportError, ValueError):  # a broken or half-removed installation
        return False


def require_panel() -> None:
    """Raise an ImportError that says how to install Panel when it is missing."""
    if not panel_available():
        raise ImportError(f"the bayescm app needs Panel, which is not installed: {PANEL_HINT}")


def create_app() -> Any:
    """The app as a Panel layout, with its own widgets and state.

    In a notebook: ``import panel as pn; pn.extension()``, then display
    ``bcm.app.create_app()``; in a script served by ``panel serve``, call ``.servable()`` on it.

    Returns
    -------
    panel.Column

    Examples
    --------
    >>> import bayescm as bcm
    >>> page = bcm.app.create_app()
    >>> "bcm-app" in page.css_classes
    True
    """
    require_panel()
    from bayescm.app.layout import create_app as build

    return build()


def serve(port: int = 0, address: str = "127.0.0.1", show: bool = False,
          threaded: bool = True, *, websocket_origin: Sequence[str] = (),
          on_start: Callable[[str], None] | None = None, timeout: float = 30.0) -> AppServer:
    """Serve the app on a local web server (see :func:`bayescm.app.server.serve`).

    ``threaded=True`` (the default) returns once the server accepts connections, with ``.port``
    (the real one when 0 was asked), ``.url`` and ``.stop()``; ``threaded=False`` serves until
    Ctrl-C, as ``bayescm app`` does.

    Examples
    --------
    >>> import bayescm as bcm
    >>> app = bcm.app.serve(port=0)
    >>> app.port > 0, app.url.startswith("http://127.0.0.1:")
    (True, True)
    >>> app.stop()
    """
    require_panel()
    from bayescm.app.server import serve as start

    return start(port, address, show, threaded, websocket_origin=websocket_origin,
                 on_start=on_start, timeout=timeout)
