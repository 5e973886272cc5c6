"""Reproductions of the papers' experiments, run by ``lrkl reproduce NAME``."""
