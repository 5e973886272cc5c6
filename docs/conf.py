"""Sphinx configuration of the lrkl documentation."""

project = "lrkl"
author = "the lrkl developers"
extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]
autosummary_generate = True
templates_path = ["_templates"]
autodoc_typehints = "none"
autodoc_member_order = "bysource"
numpydoc_show_class_members = False
numpydoc_validation_checks: set[str] = set()
html_theme = "pydata_sphinx_theme"
html_theme_options = {"github_url": "https://github.com/lrkl/lrkl"}
# The fragments are included by the pages of performance/, not documents of their own.
exclude_patterns = ["_build", "generated/gallery/*.ipynb", "performance/fragments/*"]
sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
}
suppress_warnings = ["config.cache"]
