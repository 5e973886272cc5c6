"""Centred-alignment multiple kernel learning (Cortes, Mohri & Rostamizadeh 2012)."""

from lrkl.alignment._weights import alignment_weights, factor_alignment

__all__ = ["alignment_weights", "factor_alignment"]
