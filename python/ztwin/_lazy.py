"""Modules imported when first used.

``pandas`` takes a few tenths of a second to import; most commands
(``ztwin report``, ``ingest``, ``diagnose`` on the common paths) never use
it. Modules that need it in a few functions bind ``pd = lazy("pandas")`` at
import time (``import pandas as pd`` under ``TYPE_CHECKING`` for the types):
the real import happens at the first attribute read.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


class LazyModule(ModuleType):
    """A stand-in for a module, imported at the first attribute read."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self._lazy_name = name
        self._lazy_module: ModuleType | None = None

    def __getattr__(self, attr: str) -> Any:
        mod = self.__dict__.get("_lazy_module")
        if mod is None:
            mod = importlib.import_module(self.__dict__["_lazy_name"])
            self.__dict__["_lazy_module"] = mod
        return getattr(mod, attr)


def lazy(name: str) -> Any:
    """The module ``name``, imported when first used."""
    return LazyModule(name)
