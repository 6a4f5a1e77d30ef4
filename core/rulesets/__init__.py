"""tabletrail's four built-in rulesets, one package per rule document.

Each is a ruleset plug-in like any other (declared by an entry point in pyproject.toml, importing
only `tabletrail.ruleset_api`); the registry that finds them by id is core/engine/registry.py, in the
engine's layer. Its two names are repeated here for code written before it moved there.
"""

from tabletrail.core.engine.registry import RULESETS as RULESETS
from tabletrail.core.engine.registry import get as get
