"""The terrains and tags a scenario's legend may name: the shared ones, for every ruleset.

A ruleset plug-in adds its own (`RulesetPlugin.terrains`, `.tags`; events/plugins.py merges them):
the reader accepts exactly the shared ones and those the installed rulesets declare, so a typo such
as "slipery" is still caught when the scenario is loaded.
"""

# Tags a legend entry may carry; rulesets give them meaning.
KNOWN_TAGS = frozenset(
    {
        "floor",
        "wall",
        "solid",
        "rough",
        "difficult",
        "water",
        "deep",
        "slippery",
        "unstable",
        "soft",
        "liquid",
        "hazard",
        "trap",
        "ladder",
        "stairs",
        "gap",
        "obstacle",
        "ledge",
        "stable",
        "climbable",
    }
)
# A terrain name is shorthand for its tags.
TERRAIN_TAGS: dict[str, tuple[str, ...]] = {
    "floor": ("floor",),
    "wall": ("wall", "solid", "stable"),
    "rough": ("rough", "difficult"),
    "difficult": ("rough", "difficult"),
    "water": ("water", "rough", "difficult", "liquid"),
    "deep-water": ("water", "deep", "liquid"),
    "slippery": ("slippery",),
    "unstable": ("unstable",),
    "soft": ("soft",),
    "hazard": ("hazard",),
    "trap": ("trap",),
    "ladder": ("ladder", "climbable"),
    "stairs": ("stairs",),
    "gap": ("gap",),
    "obstacle": ("obstacle", "solid"),
    "ledge": ("ledge", "climbable"),
    "stable": ("stable", "solid"),
}
