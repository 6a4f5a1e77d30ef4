"""The per-process connection cap follows the descriptor limit (issue 29, app/web/guard.py).

A convention's 3,000 live pages spread unevenly over four workers: a fixed cap of
900 answered 503 to the reconnects of the busiest one, and an EventSource told
503 gives up for good.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

PROBE = """
import resource, sys
soft, hard = int(sys.argv[1]), int(sys.argv[2])
resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
from tabletrail.web.guard import LIMITS
print(LIMITS.max_connections, resource.getrlimit(resource.RLIMIT_NOFILE)[0])
"""


def cap_with(soft: int, hard: int) -> tuple[int, int]:
    out = subprocess.run([sys.executable, "-c", PROBE, str(soft), str(hard)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    cap, raised = out.stdout.split()
    return int(cap), int(raised)


def test_the_soft_limit_is_raised_as_far_as_the_hard_one_allows_and_room_is_kept():
    assert cap_with(1024, 4096) == (4096 - 124, 4096)


def test_a_process_that_cannot_raise_its_limit_keeps_below_it():
    assert cap_with(1024, 1024) == (900, 1024)


def test_the_cap_never_passes_ten_thousand():
    import resource

    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard != resource.RLIM_INFINITY and hard < 10_124:
        pytest.skip(f"this machine's hard descriptor limit is {hard}: the first test covers it")
    assert cap_with(1024, 10_124 if hard == resource.RLIM_INFINITY else hard)[0] == 10_000
