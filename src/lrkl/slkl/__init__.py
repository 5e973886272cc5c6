"""Stochastic low-rank kernel learning (Machart et al., ICML 2011): solver and estimators."""
