"""What every benchmark module shares: the backends by name (lrkl's one resolver), data moved
there once in setup."""

from __future__ import annotations

import numpy as np

from lrkl._backend import BackendUnavailable, resolve_backend

BACKENDS = ["numpy", "torch", "cupy"]


def namespace(name):
    """The array namespace for ``name``; raises NotImplementedError (asv: skip) if unavailable."""
    try:
        return resolve_backend(name)[0]
    except BackendUnavailable as exc:
        raise NotImplementedError(str(exc)) from exc


def to_backend(xp, a):
    """Copy a NumPy array into ``xp`` (on its default device)."""
    return xp.asarray(np.ascontiguousarray(a))
