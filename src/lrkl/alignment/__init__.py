"""Centred-alignment multiple kernel learning (Cortes, Mohri & Rostamizadeh 2012)."""
