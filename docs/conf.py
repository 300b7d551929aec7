"""Sphinx configuration of mpisim's documentation.

Build it from the project root (after ``pip install -e ".[docs]"``):

    sphinx-build -W --keep-going -n -b html docs docs/_build/html

The notebooks are executed on every build (``-D nb_execution_mode=cache`` reuses earlier
outputs while only the prose changes); docs/README.md says more.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))
sys.path.insert(0, str(HERE.parent))  # mpisim from this checkout, installed or not

import mpisim  # noqa: E402

project = "mpisim"
author = "the mpisim authors"
copyright = "the mpisim authors"
release = mpisim.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "myst_nb",  # MyST Markdown pages (myst-parser) and executed notebooks
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx_copybutton",
    "mpisim_docs",  # docs/_ext: the notebooks copied in, classes users meet, references
]

root_doc = "index"
exclude_patterns = ["_build", "_ext", "jupyter_execute", "**.ipynb_checkpoints"]

# -- MyST ----------------------------------------------------------------------------------
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3  # [text](page.md#a-heading) links

# -- the notebooks (copied from notebooks/ by mpisim_docs) ----------------------------------
nb_execution_mode = "force"  # outputs always from this checkout's code
nb_execution_timeout = 300  # seconds per cell
nb_execution_raise_on_error = True  # a notebook that fails fails the build
nb_execution_show_tb = True
nb_merge_streams = True

# -- API reference --------------------------------------------------------------------------
autodoc_typehints = "description"
autodoc_typehints_description_target = "all"
autodoc_typehints_format = "short"
autodoc_member_order = "bysource"
autodoc_class_signature = "mixed"
add_module_names = False  # a reference entry shows its name; the page says where it lives
# Docstrings are prose; napoleon reads Google- or NumPy-style sections where there are any
# (mpisim_docs keeps it off properties, whose "The CLI's status: 0 safe" is not a type).
napoleon_google_docstring = True
napoleon_numpy_docstring = True

# Nitpicky mode checks every cross-reference. Targets that are left on purpose:
nitpick_ignore_regex = [
    # Other projects' types: no inventory is fetched (the build works offline).
    ("py:class", r"(builtins|collections|concurrent|enum|os|pathlib|typing|numpy|np|simpy"
                 r"|matplotlib|distributed)\..*"),
    ("py:class", r"(Path|PathLike|Executor|ndarray|dtype|Axes|Figure)"),
    # The engine's own types in signatures, which a user neither builds nor reads: the SimPy
    # event a handle call returns (only ever yielded), a profile object (only passed on), the
    # arguments of constructors only mpisim calls (a communicator's or window's shared part, a
    # scenario's parsed header), what resolving settings gives the engine, why a blocked call
    # waits (its report says it in words), a recorded process's parsed log and the widgets
    # ms.explore returns (a notebook displays them).
    ("py:class", r"(mpisim\..*\.)?(Event|Profile|CommInfo|Header|ResolvedMPIConfig"
                 r"|NetworkModel|Cause|RankLog|Explorer|WindowInfo)"),
    # A docstring's reference to its package's source-line lookup (recorded runs), internal.
    ("py:(mod|func)", r"\.?(sources|sources\.\w+|locate_sources)"),
]

# -- HTML -----------------------------------------------------------------------------------
html_theme = "furo"
html_title = f"mpisim {release}"
html_static_path = ["_static"]
html_css_files = ["mpisim.css"]
html_show_sourcelink = False
copybutton_prompt_text = r"\$ "
copybutton_prompt_is_regexp = True
