"""One rule for random numbers: how ``random_seed`` is read, split into streams and recorded.

Every function that draws takes ``random_seed`` and turns it into a
:class:`numpy.random.SeedSequence` with :func:`seed_sequence`:

* ``None``: fresh entropy from the operating system (recorded, so the result can be redrawn);
* an integer ``>= 0`` (Python or NumPy): that seed;
* a :class:`~numpy.random.SeedSequence`: used as given (never mutated);
* a :class:`~numpy.random.Generator`: 128 bits drawn from it become the entropy, so the
  generator's *state* matters and it is advanced, as NumPy users expect.

Independent streams (posterior, prior, NUTS, chunks of a batch) are the children
``SeedSequence(entropy, spawn_key=(..., i))``, which is what ``SeedSequence.spawn`` makes for a
fresh sequence but without mutating it, so one sequence can seed several fits identically
(:func:`bayescm.prior_sensitivity` relies on that). The entropy and spawn key are recorded in
the result's attributes (:func:`record`); ``random_seed=seed_from_attrs(idata.attrs)`` redraws
the same numbers, and two results with the same record share random numbers
(:func:`shared_stream`), which comparisons warn about.
"""

from __future__ import annotations

import json
import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np

from bayescm.core.arguments import warn_user
from bayescm.core.validate import INT64_MAX
from bayescm.errors import SharedRandomNumbersWarning

__all__ = ["SharedRandomNumbersWarning", "child", "generator", "record", "seed_from_attrs",
           "seed_sequence", "shared_stream", "streams", "warn_if_shared"]

RandomSeed = int | np.integer | np.random.SeedSequence | np.random.Generator | None


def seed_sequence(random_seed: Any, name: str = "random_seed") -> np.random.SeedSequence:
    """The :class:`~numpy.random.SeedSequence` a ``random_seed`` argument stands for.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.core.streams import seed_sequence
    >>> seed_sequence(np.int64(3)).entropy
    3
    >>> rng = np.random.default_rng(3)
    >>> seed_sequence(rng).entropy != seed_sequence(rng).entropy   # the state is advanced
    True
    """
    if random_seed is None:
        return np.random.SeedSequence()
    if isinstance(random_seed, np.random.SeedSequence):
        return np.random.SeedSequence(random_seed.entropy, spawn_key=random_seed.spawn_key,
                                      pool_size=random_seed.pool_size)
    if isinstance(random_seed, np.random.Generator):
        return np.random.SeedSequence(int.from_bytes(random_seed.bytes(16), "little"))
    if isinstance(random_seed, (bool, np.bool_)) or not isinstance(random_seed, numbers.Integral):
        hint = (" (np.random.RandomState is the legacy interface: pass "
                "np.random.default_rng(seed) instead)"
                if isinstance(random_seed, np.random.RandomState) else "")
        raise TypeError(
            f"{name} must be None, an integer >= 0, a numpy SeedSequence or a numpy Generator, "
            f"got {random_seed!r} ({type(random_seed).__name__}){hint}.")
    if random_seed < 0:
        raise ValueError(f"{name} must be >= 0, got {random_seed}.")
    return np.random.SeedSequence(int(random_seed))


def child(seq: np.random.SeedSequence, index: int) -> np.random.SeedSequence:
    """The ``index``-th independent child of ``seq``, without mutating ``seq``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.core.streams import child
    >>> seq = np.random.SeedSequence(7)
    >>> child(seq, 1).spawn_key == seq.spawn(2)[1].spawn_key
    True
    """
    return np.random.SeedSequence(seq.entropy, spawn_key=tuple(seq.spawn_key) + (int(index),),
                                  pool_size=seq.pool_size)


def streams(seq: np.random.SeedSequence, n: int) -> list[np.random.Generator]:
    """``n`` independent generators, children ``0 .. n - 1`` of ``seq``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.core.streams import streams
    >>> a, b = streams(np.random.SeedSequence(1), 2)
    >>> a.random() != b.random()
    True
    """
    return [np.random.default_rng(child(seq, i)) for i in range(n)]


def generator(random_seed: Any, name: str = "random_seed"
              ) -> tuple[np.random.Generator, np.random.SeedSequence]:
    """One generator for ``random_seed`` and the sequence behind it (for the record).

    Examples
    --------
    >>> from bayescm.core.streams import generator
    >>> rng, seq = generator(5)
    >>> seq.entropy
    5
    """
    seq = seed_sequence(random_seed, name)
    return np.random.default_rng(seq), seq


def record(seq: np.random.SeedSequence) -> dict[str, Any]:
    """Attributes that let a result be redrawn: ``random_seed`` (+ ``random_seed_spawn_key``).

    The entropy is stored as an integer when it fits in int64 (a seed a user typed), else as
    its decimal string (OS entropy is 128 bits; netCDF attributes hold at most 64).

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.core.streams import record
    >>> record(np.random.SeedSequence(3))
    {'random_seed': 3}
    """
    entropy = seq.entropy
    assert entropy is not None  # a SeedSequence draws its entropy when given None
    if isinstance(entropy, (int, numbers.Integral)):
        value: Any = int(entropy) if 0 <= int(entropy) <= INT64_MAX else str(int(entropy))
    else:  # a sequence of integers
        value = json.dumps([int(v) for v in entropy])
    out: dict[str, Any] = {"random_seed": value}
    if seq.spawn_key:
        out["random_seed_spawn_key"] = json.dumps([int(v) for v in seq.spawn_key])
    return out


def seed_from_attrs(attrs: Mapping[str, Any], strict: bool = False
                    ) -> np.random.SeedSequence | None:
    """The seed recorded by :func:`record`, or None if the attributes hold none.

    ``strict=True`` (redrawing a result) raises a ValueError for a ``random_seed`` attribute
    that :func:`record` cannot have written (edited, or from another program), instead of
    returning None, which would draw fresh entropy silently.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.core.streams import record, seed_from_attrs
    >>> seq = np.random.SeedSequence(2**100, spawn_key=(4,))
    >>> again = seed_from_attrs(record(seq))
    >>> again.entropy == seq.entropy and again.spawn_key == seq.spawn_key
    True
    """
    value = attrs.get("random_seed")
    if value is None or (isinstance(value, numbers.Integral) and int(value) < 0):
        return None  # -1: results written before seeds were recorded
    try:
        if isinstance(value, str):
            parsed = json.loads(value)
            entropy: Any = [int(v) for v in parsed] if isinstance(parsed, list) else int(parsed)
        else:
            entropy = int(value)
        key = tuple(int(v) for v in json.loads(attrs.get("random_seed_spawn_key", "[]")))
        if (isinstance(entropy, int) and entropy < 0) or (
                isinstance(entropy, list) and any(v < 0 for v in entropy)) or any(
                v < 0 for v in key):
            raise ValueError("negative")
    except (TypeError, ValueError):
        if strict:
            raise ValueError(
                f"The result's random_seed attribute ({value!r}, spawn key "
                f"{attrs.get('random_seed_spawn_key', '[]')!r}) is not a seed bayescm "
                "records, so its draws cannot be redrawn; pass random_seed= explicitly (an "
                "integer) to draw anew.") from None
        return None
    return np.random.SeedSequence(entropy, spawn_key=key)


def _identity(attrs: Mapping[str, Any]) -> tuple[Any, ...] | None:
    seq = seed_from_attrs(attrs)
    if seq is None:
        return None
    entropy = seq.entropy
    assert entropy is not None  # a SeedSequence draws its entropy when given None
    return (int(entropy) if isinstance(entropy, (int, numbers.Integral)) else tuple(entropy),
            tuple(seq.spawn_key))


def shared_stream(attrs_a: Mapping[str, Any], attrs_b: Mapping[str, Any]) -> bool:
    """Whether two results were drawn from the same recorded random numbers.

    Examples
    --------
    >>> from bayescm.core.streams import shared_stream
    >>> shared_stream({"random_seed": 3}, {"random_seed": 3}), shared_stream({}, {})
    (True, False)
    """
    a, b = _identity(attrs_a), _identity(attrs_b)
    return a is not None and a == b


def warn_if_shared(attrs_a: Mapping[str, Any], attrs_b: Mapping[str, Any]
                   ) -> None:
    """Warn (:class:`SharedRandomNumbersWarning`) when two results share random numbers."""
    if shared_stream(attrs_a, attrs_b):
        seed = attrs_a.get("random_seed")
        warn_user(
            f"Both results were drawn from the same random numbers (random_seed={seed}: the "
            "same seed, or generators in the same state), so their draws are not independent "
            "and the comparison is biased (two identical classifiers would never tie). Fit "
            "them with different seeds, or as one batch: bcm.fit({'a': cm_a, 'b': cm_b}).",
            SharedRandomNumbersWarning)
