"""
SLKL: the objective and the number of active kernels along the iterations
=========================================================================

With ``solver="coordinate"``, :class:`lrkl.SLKLRegressor` minimises F(μ) by the paper's coordinate
descent (random coordinates, Newton steps here); the callback records F and m0, the number of
rank-one kernels with a positive weight, at every check.
"""

import matplotlib.pyplot as plt
import numpy as np

from lrkl import SLKLRegressor
from lrkl.datasets import make_sinc
from lrkl.kernels import Gaussian

X_train, y_train, X_test, y_test = make_sinc(n_train=2000, n_test=500, random_state=0)
model = SLKLRegressor(
    Gaussian(sigma2=0.5),
    n_columns=300,
    nu=0.01,
    solver="coordinate",
    selection="random",
    step="newton",
    random_state=0,
).fit(X_train, y_train)

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.5))
ax1.plot(model.iteration_history_, model.objective_history_)
ax1.set(xlabel="iteration", ylabel="F(μ)", yscale="log", title="objective")
ax2.plot(model.iteration_history_, model.n_active_history_)
ax2.set(xlabel="iteration", ylabel="m0", title="active kernels")
fig.tight_layout()
print(f"test MSE {np.mean((model.predict(X_test) - y_test) ** 2):.2e}")
