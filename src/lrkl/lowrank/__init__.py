"""Low-rank approximations of kernel matrices: incomplete Cholesky, CSI and Nyström."""

from lrkl.lowrank._factors import (
    LowRankFactor,
    alignment_weights,
    cholesky_features,
    csi,
    factor_alignment,
    icd,
    icd_column,
    nystrom,
)

__all__ = [
    "LowRankFactor",
    "alignment_weights",
    "cholesky_features",
    "csi",
    "factor_alignment",
    "icd",
    "icd_column",
    "nystrom",
]
