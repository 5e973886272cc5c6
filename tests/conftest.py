"""The backend test matrix: every test that takes ``backend`` (or ``xp``) runs on each namespace.

numpy, array_api_strict on its default device and on ``Device("device1")`` (which refuses hidden
host round trips), torch on the CPU when installed, and cupy (skipped without an NVIDIA GPU).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import pytest

from lrkl._backend import BackendUnavailable, resolve_backend


class Backend(NamedTuple):
    """One entry of the test matrix: the namespace users call, and the device to put data on."""

    name: str
    xp: Any
    device: Any

    def asarray(self, a: Any, dtype: Any = None) -> Any:
        """Move a NumPy reference array into this backend (dtype preserved unless given)."""
        a = np.asarray(a)
        if dtype is None:
            dtype = getattr(self.xp, str(a.dtype))
        return self.xp.asarray(a, dtype=dtype, device=self.device)


def _make_backend(name: str) -> Backend:
    try:
        xp, device = resolve_backend(name)
    except BackendUnavailable as exc:
        if name == "cupy":
            pytest.skip(f"cupy needs an NVIDIA GPU: {exc}")
        pytest.skip(f"{name} is not installed (nox -s tests_{name} installs it): {exc}")
    return Backend(name, xp, device)


BACKENDS = ["numpy", "array_api_strict", "array_api_strict:device1", "torch", "cupy"]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Backend:
    """The backend of the current test parameter."""
    return _make_backend(request.param)


@pytest.fixture
def xp(backend: Backend) -> Any:
    """The array namespace of the current backend."""
    return backend.xp


@pytest.fixture(autouse=True)
def _same_global_numpy_state():
    """Every test starts from one state of NumPy's global generator, and leaves it as it was:
    an estimator with ``random_state=None`` draws its landmarks from it, so a test's result
    depended on the draws of the tests before it (one failed in 1 of 6 runs of the suite)."""
    state = np.random.get_state()  # noqa: NPY002 (the legacy global state itself)
    np.random.seed(0)  # noqa: NPY002 (the legacy global state itself)
    yield
    np.random.set_state(state)  # noqa: NPY002 (the legacy global state itself)


@pytest.fixture
def rng() -> np.random.Generator:
    """A seeded NumPy generator for reference data."""
    return np.random.default_rng(0)
