"""Moved to :mod:`mpisim.values.readers` in 0.2.0; kept so that the import path the contract
names, ``mpisim.readers.SettingError``, still works."""

from .values.readers import *  # noqa: F403
from .values.readers import SettingError, __all__  # noqa: F401
