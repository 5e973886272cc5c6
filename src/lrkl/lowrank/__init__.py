"""Low-rank approximations of one kernel matrix: pivoted incomplete Cholesky, CSI and Nyström.

Every method returns a :class:`LowRankFactor`: a factor ``G`` (n × r) with ``G Gᵀ ≈ K``, the
training rows it was built from (pivots or landmarks), and what is needed to map new points to
the same features (:meth:`LowRankFactor.transform`). The kernel matrix is never formed: only its
diagonal and single columns or ``n × m`` blocks ``K[:, S]`` are evaluated.

- :func:`icd`: pivoted incomplete Cholesky decomposition (Fine & Scheinberg 2001), the greedy
  pivot of largest residual diagonal (:ref:`mklaren-icd`);
- :func:`csi`: Cholesky with side information (Bach & Jordan 2005), pivots chosen by the
  predicted decrease of ``λ tr(K − GGᵀ) + μ ‖Y − QQᵀY‖²`` estimated with look-ahead columns
  (:ref:`mklaren-csi`);
- :func:`nystrom`: the Nyström method on uniformly sampled landmarks, either the full
  pseudo-inverse square root ``G = K[:, S] W^{−1/2}`` (scikit-learn's ``Nystroem``) or the rank-R
  form ``V = C L D^{−1/2}`` of the ℓp-MKL paper (top-R eigenpairs of ``W = K[S, S]``).

ICD and CSI factors are pivoted Cholesky factors: with ``L = G[S, :]`` (lower triangular in pivot
order, ``L Lᵀ = K[S, S]``), ``G = K[:, S] L^{−ᵀ}`` and ``G Gᵀ`` is the Nyström approximation on
the pivots. A new point therefore gets the features ``g(x) = L^{−1} k(S, x)`` (eqs. 19–21 of
the Mklaren paper), one triangular solve.

The centered-alignment weights computed from factors (``factor_alignment``,
``alignment_weights``) live in :mod:`lrkl.alignment`; reading them from here still works for one
release, with a ``FutureWarning``.

Examples
--------
>>> import array_api_strict as xp
>>> from lrkl.kernels import Gaussian
>>> X = xp.reshape(xp.linspace(0.0, 1.0, 20), (20, 1))
>>> f = icd(Gaussian(gamma=1.0), X, 5)
>>> f.G.shape, f.pivots[:2]
((20, 5), (0, 19))
>>> bool(xp.max(xp.abs(f.transform(X) - f.G)) < 1e-10)
True
"""

from lrkl._base import old_module_names
from lrkl.lowrank._cholesky import icd_column
from lrkl.lowrank._csi import csi
from lrkl.lowrank._factor import LowRankFactor, cholesky_features
from lrkl.lowrank._features import LowRankFeatures
from lrkl.lowrank._icd import icd
from lrkl.lowrank._nystrom import nystrom

__all__ = [
    "LowRankFactor",
    "LowRankFeatures",
    "cholesky_features",
    "csi",
    "icd",
    "icd_column",
    "nystrom",
]


#: Names that moved to :mod:`lrkl.alignment` (lowrank sits below alignment and imports nothing
#: from it); read from here they warn and resolve lazily, for one release.
__getattr__ = old_module_names(
    __name__, {name: ("lrkl.alignment", name) for name in ("alignment_weights", "factor_alignment")}
)
