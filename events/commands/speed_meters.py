"""Commands of the speed-meters ruleset (document 004).

Heights in cells are written in whole meters (absolute, like a scenario's `at`);
a waypoint without a height keeps the mode's natural one (the ground, the water
surface, the height it flies at). Every opposed roll, save and table roll is a
check: `roll=N` enters it at the table, in the order the command's help gives.
"""

from tabletrail.events.commands import Cell, Command
from tabletrail.events.plugins import RulesetPlugin

# --- modes of movement and special movement: each is a Movement action ------


class Swim(Command, frozen=True, tag="swim"):
    """Swim through deep water in 3-D (x,y,z); the last waypoint may climb out onto the bank."""

    fighter: str
    path: tuple[Cell, ...]


class Climb(Command, frozen=True, tag="climb"):
    """Climb along a surface (x,y,z): one roll +Brawn against its difficulty; failure falls.

    bumps: the Bumps of a Skill Feat reaction to a fall, if the climb fails.
    """

    fighter: str
    path: tuple[Cell, ...]
    bumps: int = 0


class Fly(Command, frozen=True, tag="fly"):
    """Fly (needs a Fly speed) in any direction (x,y,z); may end in the air."""

    fighter: str
    path: tuple[Cell, ...]


class Hover(Command, frozen=True, tag="hover"):
    """Hover (needs a Hover speed) 1 m above the ground along x,y waypoints."""

    fighter: str
    path: tuple[Cell, ...]


class Land(Command, frozen=True, tag="land"):
    """Stop hovering: settle the last meter down onto the ground."""

    fighter: str


class Glide(Command, frozen=True, tag="glide"):
    """Start gliding (needs a Glide speed) toward a cell; the glide moves at each turn start."""

    fighter: str
    toward: Cell


class Leap(Command, frozen=True, tag="special-jump"):
    """The special Jump (needs a Jump speed): any direction (x,y,z), landing on a surface.

    bumps: the Bumps of a Skill Feat reaction, if the jump is cut short and the fighter falls.
    """

    fighter: str
    path: tuple[Cell, ...]
    bumps: int = 0


class Teleport(Command, frozen=True, tag="teleport"):
    """Teleport (needs a Teleport range) to a space in range and in line of sight."""

    fighter: str
    to: Cell


class SkillFeat(Command, frozen=True, tag="skill-feat"):
    """A Skill Feat reaction to a fall: its Bumps skip falling-table rolls when the fighter lands.

    Entered while the fighter falls (a fall longer than a turn's 20 m lands at a later turn
    start), or in its turn before a move that may step off an edge or a special jump that may
    be cut short; unused, it lapses as that turn ends. Commands that make others fall
    (fall, force, random, shove, push, pull, climb) take bumps=N themselves.
    """

    fighter: str
    bumps: int


class Fall(Command, frozen=True, tag="fall"):
    """An effect makes an airborne or climbing fighter fall from where it is (GM command)."""

    fighter: str
    bumps: int = 0


# --- forced movement -------------------------------------------------------------


class Force(Command, frozen=True, tag="force"):
    """Forced movement by an effect (GM command): kind push, pull or slide along a path.

    source: the fighter the force comes from, or origin: the cell it comes from
    (push and pull need one). aware=no: the target does not know of the hazards
    on the way, so it gets no save. Rolls: one save per hazard met.
    """

    fighter: str
    kind: str
    path: tuple[Cell, ...]
    source: str = ""
    origin: Cell = ()
    aware: bool = True
    bumps: int = 0


class RandomMove(Command, frozen=True, tag="random"):
    """Move a fighter in a random direction (GM command): a 1d8 picks the neighbour.

    meters: how far it goes that way. Rolls: the 1d8, then any save.
    """

    fighter: str
    meters: int = 1
    aware: bool = True
    bumps: int = 0


# --- grappling: actions of the attacker ---------------------------------------


class Shove(Command, frozen=True, tag="shove"):
    """Shove an adjacent creature away; rolls: attacker's +Brawn, then defender's."""

    fighter: str
    target: str
    bumps: int = 0


class Push(Command, frozen=True, tag="push"):
    """Push an adjacent creature and follow it; rolls: attacker's +Brawn, then defender's."""

    fighter: str
    target: str
    bumps: int = 0


class Pull(Command, frozen=True, tag="pull"):
    """Step back pulling an adjacent creature after you; rolls: attacker's, then defender's."""

    fighter: str
    target: str
    bumps: int = 0


class Grab(Command, frozen=True, tag="grab"):
    """Grab an adjacent creature; rolls: attacker's +Brawn, then defender's."""

    fighter: str
    target: str


class Escape(Command, frozen=True, tag="escape"):
    """A grabbed fighter tries to break free: a roll +Brawn against the escape difficulty."""

    fighter: str


class Release(Command, frozen=True, tag="release"):
    """A grabber lets go."""

    fighter: str


# The ruleset's declaration, named by the entry point 'speed-meters' (pyproject.toml): its rules are
# imported only when a command of it is decided; its rules version is tabletrail's own (RULES_VERSION).
PLUGIN = RulesetPlugin(
    id="speed-meters",
    ruleset="tabletrail.core.rulesets.speed_meters:SpeedMeters",
    rules_version="",
    title="Speed per Movement action, 1 m spaces",
)
