"""Prior specifications: small, validated, serialisable objects that make their own variables.

Every bayescm prior makes its PyMC variable (``create_variable(name, dims=None)``), describes
itself (``to_dict()``, rebuilt by :func:`from_dict`), updates in closed form and draws with
NumPy; see :mod:`bayescm.priors.protocol`.
"""

from bayescm.priors.beta import Beta
from bayescm.priors.dirichlet import Dirichlet, PresetDirichlet, RatesByClass
from bayescm.priors.external import PreliZPrior, from_preliz
from bayescm.priors.fixed import Fixed
from bayescm.priors.multiclass import preset_row, resolve_multiclass_priors
from bayescm.priors.presets import PRIOR_NAMES, Flat, Haldane, Jeffreys, Laplace, Weak
from bayescm.priors.protocol import PriorFactory, PriorSpec, is_conjugate
from bayescm.priors.resolve import resolve_prior
from bayescm.priors.serialize import (
    PRIOR_FORMS,
    PriorFormError,
    from_dict,
    prior_to_dict,
    register_prior_form,
)

__all__ = ["PRIOR_FORMS", "PRIOR_NAMES", "Beta", "Dirichlet", "Fixed", "Flat", "Haldane",
           "Jeffreys", "Laplace", "PreliZPrior", "PresetDirichlet", "PriorFactory",
           "PriorFormError", "PriorSpec", "RatesByClass", "Weak", "from_dict", "from_preliz",
           "is_conjugate", "preset_row", "prior_to_dict", "register_prior_form",
           "resolve_multiclass_priors", "resolve_prior"]
