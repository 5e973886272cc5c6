"""Backends the benchmarks run on: data moved there once in setup, the stream synced per call."""

from __future__ import annotations

import importlib

import numpy as np

BACKENDS = ["numpy", "torch", "cupy"]


def namespace(name):
    """The array namespace for ``name``; raises NotImplementedError (asv: skip) if unavailable."""
    try:
        if name == "cupy":
            cupy = importlib.import_module("cupy")
            if cupy.cuda.runtime.getDeviceCount() < 1:
                raise NotImplementedError("no CUDA device")
        return importlib.import_module(f"array_api_compat.{name}")
    except (ImportError, RuntimeError) as exc:
        raise NotImplementedError(f"{name} is not available: {exc}") from exc


def to_backend(xp, a):
    """Copy a NumPy array into ``xp`` (on its default device)."""
    return xp.asarray(np.ascontiguousarray(a))
