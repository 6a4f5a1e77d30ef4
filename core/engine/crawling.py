"""Crawling, the part rulesets share: a prone body pays a multiple of each step's price.

initiative-yards' crawl ("every yard crawled costs 2") and speed-meters' prone_move = crawl read the
same mechanic; what a step costs standing is each ruleset's own, the crawl's factor is written here.
"""

from __future__ import annotations

from tabletrail.core.board.state import Fighter

CRAWL_FACTOR = 2  # crawl: "every yard crawled costs 2" (initiative-yards); a prone speed-meters crawl


def is_prone(f: Fighter) -> bool:
    """Is the fighter lying prone (the POSTURE machine, core/engine/machines.py)?"""
    return f.state("posture", "standing") == "prone"


def crawl_factor(f: Fighter, factor: int = CRAWL_FACTOR) -> int:
    """What a step costs the fighter, as a multiple of its price standing: `factor` while prone."""
    return factor if is_prone(f) else 1
