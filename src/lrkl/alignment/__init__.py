"""Centred-alignment multiple kernel learning (Cortes, Mohri & Rostamizadeh 2012)."""

from lrkl.alignment._estimator import AlignmentKernelRidge, kernel_alignment
from lrkl.alignment._weights import alignment_weights, factor_alignment

__all__ = ["AlignmentKernelRidge", "alignment_weights", "factor_alignment", "kernel_alignment"]
