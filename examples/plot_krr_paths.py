"""
Regularisation paths of kernel ridge regression with a bias
===========================================================

Prato & Zanni's three regularisations of ``f(x) = Σ c_i k(x_i, x) + b`` on the bundled ``mg``
data set: RLS with an unpenalised bias (system (7)), Tikhonov on ``[K 1]`` and CG stopped after
``t`` iterations. :class:`lrkl.KernelRidgeCV` gives each method's whole path from one
factorisation (one CGLS run per fold for CG) with its validation error: exact leave-one-out for
RLS and Tikhonov, 5-fold for CG. The dashed lines are the test errors along the same paths.
"""

import matplotlib.pyplot as plt
import numpy as np

from lrkl import KernelRidge, KernelRidgeCV
from lrkl.datasets import load_prato_zanni
from lrkl.kernels import Gaussian

data = load_prato_zanni("mg")
X, y, X_test, y_test = data.split(random_state=0)
kernel = Gaussian(sigma2=data.sigma2)

fig, (ax_lambda, ax_t) = plt.subplots(1, 2, figsize=(9, 3.5))
for method, colour in (("rls", "C0"), ("tikhonov", "C1")):
    model = KernelRidgeCV(kernel, method=method).fit(X, y)
    lambdas = np.array(model.alphas_) / X.shape[0]  # the paper's λ = α / n
    ax_lambda.plot(lambdas, [row[0] for row in model.mse_path_], colour, label=f"{method}, LOO")
    every_tenth = model.alphas_[::10]
    fits = [KernelRidge(kernel, alpha=a, method=method).fit(X, y) for a in every_tenth]
    test = [np.mean((fit.predict(X_test) - y_test) ** 2) for fit in fits]
    ax_lambda.plot(lambdas[::10], test, colour, linestyle="--", marker=".", label=f"{method}, test")
    ax_lambda.axvline(model.alpha_ / X.shape[0], color=colour, linewidth=0.5)
ax_lambda.set(xscale="log", yscale="log", xlabel="λ", ylabel="MSE", title="RLS (7) and Tikhonov")
ax_lambda.legend(fontsize=8)

cg = KernelRidgeCV(kernel, method="cg", max_iter=50).fit(X, y)
ax_t.plot(cg.n_iters_, [np.mean(row) for row in cg.mse_path_], "C2", label="CG, 5-fold")
ts = (1, 5, 10, 20, 30, 40, 50)
fits = [KernelRidge(kernel, method="cg", max_iter=t).fit(X, y) for t in ts]
ax_t.plot(ts, [np.mean((f.predict(X_test) - y_test) ** 2) for f in fits], "C2--.", label="CG, test")
ax_t.axvline(cg.n_iter_, color="C2", linewidth=0.5)
ax_t.set(yscale="log", xlabel="t (CG iterations)", title="CG")
ax_t.legend(fontsize=8)
fig.tight_layout()
