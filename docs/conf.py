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
    "mpisim_site",  # docs/_ext: the gallery, exit codes, JSON example, BibTeX, from the project
    "sphinxarg.ext",  # the CLI reference, from mpisim.cli.main.parser
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
    # The simulated primitives ms.Lock, ms.Queue... return, and the thread mpi.spawn_thread
    # returns: their methods and attributes are listed in the Returns section that gives them.
    ("py:class", r"(mpisim\.engine\.sync\.)?(Lock|RLock|Condition|Semaphore|BoundedSemaphore"
                 r"|Event|Barrier|Queue)"),
    ("py:class", r"(mpisim\.engine\.threads\.)?(SimThread|MainThread)"),
    # A docstring's reference to its package's source-line lookup (recorded runs), internal.
    ("py:(mod|func)", r"\.?(sources|sources\.\w+|locate_sources)"),
]

# -- HTML -----------------------------------------------------------------------------------
html_theme = "furo"
html_title = f"mpisim {release}"
html_static_path = ["_static"]
html_css_files = ["mpisim.css"]
html_show_sourcelink = False
# The source and the issue tracker on every page (furo: the footer icons, "edit this page")
REPOSITORY = "https://github.com/mpisim/mpisim"
html_theme_options = {
    "source_repository": REPOSITORY + "/",
    "source_branch": "main",
    "source_directory": "docs/",
    "footer_icons": [
        {"name": "Source on GitHub", "url": REPOSITORY, "class": "",
         "html": '<svg stroke="currentColor" fill="currentColor" stroke-width="0" '
                 'viewBox="0 0 16 16"><path fill-rule="evenodd" d="M8 0C3.58 0 0 3.58 0 '
                 '8c0 3.54 2.29 6.53 5.47 7.59.4.07.55-.17.55-.38 0-.19-.01-.82-.01-1.49-2.01'
                 '.37-2.53-.49-2.69-.94-.09-.23-.48-.94-.82-1.13-.28-.15-.68-.52-.01-.53.63-.01'
                 ' 1.08.58 1.23.82.72 1.21 1.87.87 2.33.66.07-.52.28-.87.51-1.07-1.78-.2-3.64-.89'
                 '-3.64-3.95 0-.87.31-1.59.82-2.15-.08-.2-.36-1.02.08-2.12 0 0 .67-.21 2.2.82.64'
                 '-.18 1.32-.27 2-.27.68 0 1.36.09 2 .27 1.53-1.04 2.2-.82 2.2-.82.44 1.1.16 '
                 '1.92.08 2.12.51.56.82 1.27.82 2.15 0 3.07-1.87 3.75-3.65 3.95.29.25.54.73.54 '
                 '1.48 0 1.07-.01 1.93-.01 2.2 0 .21.15.46.55.38A8.013 8.013 0 0 0 16 8c0-4.42-'
                 '3.58-8-8-8z"></path></svg>'},
    ],
}
html_context = {"mpisim_issues": REPOSITORY + "/issues"}
html_sidebars = {"**": ["sidebar/scroll-start.html", "sidebar/brand.html",
                        "sidebar/search.html", "sidebar/navigation.html",
                        "mpisim-links.html", "sidebar/scroll-end.html"]}
templates_path = ["_templates"]
copybutton_prompt_text = r"\$ "
copybutton_prompt_is_regexp = True
