"""Mklaren: multiple kernel learning with least-angle regression (Stražar & Curk 2016)."""
