"""What every benchmark module shares: the backends by name (lrkl's one resolver) and a base
class that moves the data there once in ``setup`` and waits for the device after each run."""

from __future__ import annotations

import numpy as np

from lrkl._backend import BackendUnavailable, resolve_backend, synchronize

BACKENDS = ["numpy", "torch", "cupy"]


def namespace(name):
    """The array namespace for ``name``; raises NotImplementedError (asv: skip) if unavailable."""
    try:
        return resolve_backend(name)[0]
    except BackendUnavailable as exc:
        raise NotImplementedError(str(exc)) from exc


class OnBackend:
    """Base of the benchmarks with a ``backend`` parameter.

    ``setup`` calls :meth:`use_backend` first (an unavailable backend makes asv skip the case);
    :meth:`to_backend` copies NumPy data there once, outside the timed code; a timed method ends
    with :meth:`sync` so that an asynchronous device (CuPy) is timed to the end of its work.
    """

    xp = None

    def use_backend(self, name):
        self.xp = namespace(name)

    def to_backend(self, *arrays):
        """Copies of NumPy arrays in the backend (on its default device), one per argument."""
        out = tuple(None if a is None else self.xp.asarray(np.ascontiguousarray(a)) for a in arrays)
        return out if len(out) > 1 else out[0]

    def to_backend_as(self, dtype, *arrays):
        """As :meth:`to_backend`, in the backend's dtype named ``dtype`` ("float32", ...)."""
        wide = (self.to_backend(*arrays),) if len(arrays) == 1 else self.to_backend(*arrays)
        out = tuple(self.xp.astype(a, getattr(self.xp, dtype)) for a in wide)
        return out if len(out) > 1 else out[0]

    def sync(self):
        synchronize(self.xp)
