"""Model kinds and fitting: the contract, the registry, the context and the built-in kinds.

Importing this package registers the built-in kinds (binary, multiclass, paired, hierarchical,
scores) in :mod:`bayescm.models.registry`.
"""

from bayescm.models import binary, hierarchical, multiclass, paired, scores  # noqa: F401 (register)
from bayescm.models.base import ModelKind, Parameter
from bayescm.models.registry import get, keys, kind_of, register

__all__ = ["ModelKind", "Parameter", "get", "keys", "kind_of", "register"]
