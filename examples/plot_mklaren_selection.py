"""
Mklaren: which kernel is chosen at each step
============================================

:class:`lrkl.MklarenRegressor` selects Cholesky columns from several kernels by least-angle
regression; ``selected_`` tells the kernel of each step.
"""

import matplotlib.pyplot as plt
import numpy as np

from lrkl import MklarenRegressor
from lrkl.kernels import Gaussian

rng = np.random.default_rng(0)
X = rng.uniform(-3, 3, (1000, 1))
y = np.sin(3 * X[:, 0]) + 0.3 * X[:, 0] + 0.1 * rng.standard_normal(1000)
gammas = [0.01, 0.1, 1.0, 10.0]
model = MklarenRegressor([Gaussian(gamma=g) for g in gammas], n_components=20).fit(X, y)

kernel_of = [q for q, _ in model.selected_]
fig, ax = plt.subplots(figsize=(7, 3))
ax.scatter(range(1, len(kernel_of) + 1), [gammas[q] for q in kernel_of])
ax.set(xlabel="step", ylabel="γ of the chosen kernel", yscale="log", title="Mklaren's choices")
fig.tight_layout()
print("columns per kernel:", model.rank_)
