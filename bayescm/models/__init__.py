"""Model kinds and fitting: the contract, the registry, the context and the built-in kinds.

The built-in kinds (binary, multiclass, paired, hierarchical, scores) register in
:mod:`bayescm.models.registry` when their module is first needed (``registry.BUILT_IN``), so
``import bayescm`` does not import them all.
"""

from bayescm.models.base import ModelKind, Parameter
from bayescm.models.registry import get, keys, kind_of, register

__all__ = ["ModelKind", "Parameter", "get", "keys", "kind_of", "register"]
