"""
Low-rank factors: trace error against rank
==========================================

The trace error ``tr(K − G Gᵀ)`` of the incomplete Cholesky, CSI and Nyström factors of one
Gaussian kernel, against their rank.
"""

import matplotlib.pyplot as plt
import numpy as np

from lrkl import lowrank
from lrkl.kernels import Gaussian

rng = np.random.default_rng(0)
X = rng.normal(size=(500, 3))
y = np.sin(X[:, 0])
kernel = Gaussian(gamma=0.5)
ranks = [5, 10, 20, 40, 80]
errors = {
    "icd": [lowrank.icd(kernel, X, r).residual.sum() for r in ranks],
    "csi": [lowrank.csi(kernel, X, y, r, kappa=0.5).residual.sum() for r in ranks],
    "nystrom": [lowrank.nystrom(kernel, X, r, random_state=0).residual.sum() for r in ranks],
}
fig, ax = plt.subplots(figsize=(6, 3.5))
for name, err in errors.items():
    ax.plot(ranks, err, marker="o", label=name)
ax.set(xlabel="rank", ylabel="tr(K − GGᵀ)", yscale="log", title="trace error")
ax.legend()
fig.tight_layout()
