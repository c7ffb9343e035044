"""A pytest plugin that shifts every integer ``random_seed`` by a fixed amount.

``pytest -p seed_salt`` (with ``tests/plugins`` on ``sys.path``) runs the examples as if every
seed were another one: the draws change, what is true of them must not. The shift is read from
``BAYESCM_SEED_SALT`` (default 7919). Used by ``tests/test_doc_examples.py``; it changes
:func:`bayescm.core.streams.seed_sequence` in place (its code object), so the modules that
imported the function by name see the change too.
"""

import os
import types

import numpy as np

import bayescm.core.streams as streams


def _salted(random_seed, name="random_seed"):  # type: ignore[no-untyped-def]
    """seed_sequence with integer seeds moved (runs with the streams module's globals)."""
    if isinstance(random_seed, (int, np.integer)) and not isinstance(random_seed, bool) \
            and int(random_seed) >= 0:
        random_seed = int(random_seed) + _SEED_SALT  # noqa: F821 - set in streams below
    return _unsalted_seed_sequence(random_seed, name)  # noqa: F821


def pytest_configure(config):  # type: ignore[no-untyped-def]
    original = streams.seed_sequence
    if getattr(streams, "_SEED_SALT", None) is not None:
        return
    streams._SEED_SALT = int(os.environ.get("BAYESCM_SEED_SALT", "7919"))
    streams._unsalted_seed_sequence = types.FunctionType(
        original.__code__, original.__globals__, original.__name__, original.__defaults__,
        original.__closure__)
    original.__code__ = _salted.__code__


def pytest_collection_modifyitems(config, items):  # type: ignore[no-untyped-def]
    """The examples of the seed functions themselves show their exact entropy: not these."""
    items[:] = [item for item in items if "core/streams.py" not in str(item.fspath)]
