"""The official `neo4j` driver, imported without its eager pandas/pyarrow imports.

The driver imports pandas and pyarrow at import time (about 0.7 s on this machine) only to
accept DataFrame values as query parameters, which the product never passes; `Result.to_df`
still imports pandas on its own when called. Hiding both during the driver's import keeps
`kg db status` well under a second. numpy stays visible: embeddings are numpy arrays.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType


def import_driver(lean: bool = False) -> ModuleType:
    """Import the driver once per process. `lean` also hides numpy: only for commands that
    never pass numpy values as parameters (`kg db status`), since the choice is permanent."""
    if "neo4j" in sys.modules:
        return sys.modules["neo4j"]
    names = ("pandas", "pyarrow", "numpy") if lean else ("pandas", "pyarrow")
    hidden = [name for name in names if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # makes `import name` fail fast
    try:
        return importlib.import_module("neo4j")
    finally:
        for name in hidden:
            if sys.modules.get(name) is None:
                del sys.modules[name]

