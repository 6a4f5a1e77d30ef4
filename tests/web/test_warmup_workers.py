"""A `serve --workers N` worker loads the compiled reach search (numpy, scipy) as it starts (issue 29)."""

from __future__ import annotations

import subprocess
import sys

PROGRAM = """
import os, sys
os.environ["TABLETRAIL_SERVE_DB"] = "postgresql://nobody@127.0.0.1:1/none"
from tabletrail.web.hosted import from_env
assert "scipy.sparse.csgraph" not in sys.modules, "loaded before the worker started"
from_env()
print("scipy.sparse.csgraph" in sys.modules)
"""


def test_a_hosted_worker_has_loaded_scipy_before_its_first_request():
    out = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"
