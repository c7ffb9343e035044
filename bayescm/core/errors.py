"""The package's own warning and error classes, in one place.

Every warning bayescm issues is a subclass of ``UserWarning`` named for what it says, so a
user can filter one kind (``warnings.simplefilter("ignore", bcm.errors.PriorStrengthWarning)``)
without silencing the others.

Examples
--------
>>> from bayescm.core.errors import UndefinedDrawsWarning
>>> issubclass(UndefinedDrawsWarning, UserWarning)
True
"""

from __future__ import annotations

__all__ = ["MisspecificationWarning", "UndefinedDrawsWarning"]


class UndefinedDrawsWarning(UserWarning):
    """Some draws of a variable are undefined (NaN, e.g. a PPV of 0/0).

    A probability or a summary is then computed over the defined draws only, and says how
    many were left out.
    """


class MisspecificationWarning(UserWarning):
    """A model's assumptions do not fit the data (binormal scores that are not normal).

    Its intervals may then exclude the truth; the message names the model-free alternative.
    """
