"""Prior specifications: small, validated, serialisable objects that make their own variables.

Every prior the package accepts, for every model kind, follows one protocol
(:mod:`bayescm.priors.protocol`): it makes its PyMC variable (``create_variable(name,
dims=None)``), describes itself (``to_dict()``, rebuilt by :func:`from_dict`), draws with NumPy
(``sample``) and declares its conjugate family, if any (the exact samplers ask for it). The
proportions and class shares of the confusion-matrix models take :class:`Beta`,
:class:`Dirichlet`, :class:`Fixed` and the presets; the means, scales and correlations of the
NUTS models take :class:`Normal`, :class:`HalfNormal`, :class:`LogNormal` and :class:`LKJ`
(:mod:`bayescm.priors.continuous`); a rate known only to lie in an interval takes
:class:`Uniform` (a test's TPR in U(0.6, 1)); PreliZ distributions and pymc-extras ``Prior``
objects are accepted wherever a NUTS model takes a prior.
"""

from bayescm.errors import PriorFormError
from bayescm.priors.beta import Beta
from bayescm.priors.continuous import LKJ, ContinuousPrior, HalfNormal, LogNormal, Normal
from bayescm.priors.dirichlet import Dirichlet, PresetDirichlet
from bayescm.priors.elicit import cells_from_metrics, priors_from_matrix, priors_from_metrics
from bayescm.priors.external import PreliZPrior, from_preliz
from bayescm.priors.fixed import Fixed
from bayescm.priors.multiclass import preset_row, resolve_multiclass_priors
from bayescm.priors.presets import PRIOR_NAMES, Flat, Haldane, Jeffreys, Laplace, Weak
from bayescm.priors.protocol import PriorFactory, PriorSpec, is_conjugate
from bayescm.priors.rates_by_class import RatesByClass
from bayescm.priors.resolve import resolve_nuts_prior, resolve_prior
from bayescm.priors.serialize import PRIOR_FORMS, from_dict, prior_to_dict, register_prior_form
from bayescm.priors.uniform import Uniform

__all__ = ["LKJ", "PRIOR_FORMS", "PRIOR_NAMES", "Beta", "ContinuousPrior", "Dirichlet", "Fixed",
           "Flat", "Haldane", "HalfNormal", "Jeffreys", "Laplace", "LogNormal", "Normal",
           "PreliZPrior", "PresetDirichlet", "PriorFactory", "PriorFormError", "PriorSpec",
           "RatesByClass", "Uniform", "Weak", "cells_from_metrics", "from_dict", "from_preliz",
           "is_conjugate", "preset_row", "prior_to_dict", "priors_from_matrix",
           "priors_from_metrics", "register_prior_form", "resolve_multiclass_priors",
           "resolve_nuts_prior", "resolve_prior"]
