"""Sphinx configuration of the lrkl documentation."""

project = "lrkl"
author = "the lrkl developers"
extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon"]
napoleon_google_docstring = False
napoleon_numpy_docstring = True
autodoc_typehints = "none"
autodoc_member_order = "bysource"
html_theme = "alabaster"
exclude_patterns = ["_build"]
