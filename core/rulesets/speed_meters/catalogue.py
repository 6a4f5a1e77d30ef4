"""speed-meters' catalogue: its rule ids, settings and stats, in the document's order.

Each rule's code cites its id where it applies it (the package's docstring says which module holds
which); a setting names the rule whose ruling it carries.
"""

from __future__ import annotations

from tabletrail.ruleset_api import DIAGONAL_RULES, EVERY_1, Rule, Setting, Stat

RULES = (
    Rule(
        "movement",
        "a Movement action moves up to Speed meters, horizontally or diagonally, at most 1 m up by jumping",
        "diagonal rule is a ruleset setting (default: every step costs 1); the document never "
        "says how a prone fighter moves: it walks its whole Speed at the normal cost, or stands "
        "first, or crawls at 2 m a meter (setting prone_move)",
    ),
    Rule(
        "occupancy",
        "pass through allies, never end in an occupied space, never pass enemies or solid obstacles",
        "a fighter fills its space up to body_height; spaces overlap in height (setting body_height); "
        "a fall or a glide that would come down on a fighter lands in the nearest free space "
        "(setting fall_onto_fighter)",
    ),
    Rule(
        "maneuver",
        "at most 2 m of a Movement may be jump/roll/slide maneuvers",
        "every step up (stairs aside) and every space crossed in the air is a jump",
    ),
    Rule(
        "stop",
        "once a Movement stops it can't resume; moving again takes a new action",
        "a door opened or closed on the way as part of the move (door_cost 0) is not stopping: the "
        "next walk goes on with what is left of the Movement; a door that costs an action "
        "(door_cost 1 or more) is an action of its own, after which walking is a new Movement",
    ),
    Rule("rough", "a rough space costs 2 m; a Speed-1 mover ignores this"),
    Rule(
        "swim",
        "3-D movement in water; water is rough unless adapted; attackers from dry ground have "
        "Advantage; underwater the swimmer holds breath",
        "adapted: the fighter tag 'aquatic'; Speed when no Swim speed; below the surface a "
        "swimmer is underwater; breath lasts breath_rounds of its turns, and the adapted "
        "breathe water (settings breath_rounds, aquatic_breathes)",
    ),
    Rule(
        "jump",
        "1 m up or 2 m across as part of any Movement",
        "a normal Movement can't end in the air; stepping off a ledge is refused or falls "
        "(setting ledge_drop); one jump goes up or across, not both, as written (setting "
        "jump_up_and_across: either, or both within the 2 m of maneuver)",
    ),
    Rule(
        "climb",
        "roll +Brawn against difficulty 1–3 (by surface) for each climbing move; failure falls; "
        "half Speed (min 1); non-climbing attackers have Advantage",
        "one roll per climbing Movement, before it, against the hardest hold on the way; "
        "failing on the ground just loses the Movement",
    ),
    Rule("fly", "Fly: any direction, may end airborne"),
    Rule(
        "hover",
        "Hover: 1 m above ground, ignoring land obstacles, hazards and rough terrain",
        "the hover rises with the ground at most hover_rise m a step, floats straight across a "
        "dip no wider than hover_span spaces (settings); landing is free",
    ),
    Rule(
        "glide",
        "Glide: moves 5 m across as it falls at turn start, no falling damage if still gliding on landing",
        "starting a glide is a Movement, off an edge or from the air, toward one of the 8 "
        "directions; it sinks glide_descent m a turn (setting)",
    ),
    Rule("special-jump", "Special jump: any direction, must land on a surface"),
    Rule(
        "teleport",
        "Teleport: any space in range in line of sight",
        "line of sight between eyes eye_height above each space (setting); walls and "
        "solid obstacles taller than the line block",
    ),
    Rule(
        "forced",
        "push ends farther and is never closer on the way; pull ends closer and is never farther; "
        "slide goes anywhere; moved toward a known hazard or trap, the target may save as a "
        "reaction to stop prone just short of it",
        "the Save is a check against save_target (setting); a drop of more than 1 m is a hazard "
        "(setting edge_is_hazard)",
    ),
    Rule(
        "random",
        "number the 8 neighbours, roll 1d8, move that way",
        "numbering is a setting (random_numbering)",
    ),
    Rule(
        "shove",
        "opposed +Brawn; 1 m per 2 points of margin; the shover stays put",
        "grappling needs the target within grapple_reach (setting); each is an action",
    ),
    Rule(
        "push-pull",
        "opposed +Brawn; 1 m per point of margin, the mover follows into each vacated space, "
        "at most Brawn spaces",
        "the mover follows on foot: it must be walking, and it stops where its own walk would",
    ),
    Rule(
        "grab",
        "opposed +Brawn; escape difficulty = the grabber's margin; sustained: each turn the grabber "
        "commits Action Dice equal to the target's Brawn or the grab ends; both are Immobilized",
        "Action Dice are the actions budget; the first commitment is made at once",
    ),
    Rule("size", "no shove, push, pull or grab against a larger size category"),
    Rule(
        "fall-table",
        "from 5 m, one d6 per 5 m fallen: 1 death, 2 permanent trauma, 3 trauma, 4 1d10 per 2 m, "
        "5 1d6 per 2 m, 6 prone unhurt; soft ground skips 1 roll, liquid 3; a Skill Feat reaction "
        "skips 1 roll per 2 Bumps",
        "the faller always takes the opt-outs it has; a fall under 5 m lands prone (setting "
        "short_fall_prone)",
    ),
    Rule(
        "fall-speed",
        "20 m of falling per turn; landing after 5/10/15/20 m leaves 3/4, 1/2, 1/4, none of the "
        "turn's actions",
        "between the marks the time rounds by fall_rounding; a fall outside the faller's turn "
        "costs its next turn (setting off_turn_fall); landing part-way through its own turn, at "
        "most the share of the total the text says remains is left (setting fall_mid_turn)",
    ),
)

SETTINGS = (
    Setting(
        "diagonal",
        EVERY_1,
        "cost of a diagonal step: every-1, alternating, euclidean, manhattan",
        DIAGONAL_RULES,
        "speed-meters/movement",
    ),
    Setting(
        "actions_per_turn",
        4,
        "actions a fighter has each turn (house default; the document counts a turn's actions in quarters)",
        (),
        "speed-meters/stop",
    ),
    Setting(
        "check_formula",
        "1d6",
        "dice the seeded source rolls for a check: climbing, opposed +Brawn, saves, escapes "
        "(house default; the falling table rolls a d6 and random movement a d8 whatever this says)",
    ),
    Setting(
        "fall_onto_fighter",
        "beside",
        "a fall or a glide that comes down on another fighter: beside (lands in the nearest free "
        "space, as a Movement can't end in an occupied one) or same-space (the two share it); "
        "house ruling: the document says nothing of falling onto someone",
        ("beside", "same-space"),
        "speed-meters/occupancy",
    ),
    Setting(
        "short_fall_prone",
        True,
        "whether a fall under 5 m (no roll on the falling table) lands the faller prone; house "
        "ruling: the document lands a faller prone only on the table's 6 and says nothing of "
        "shorter falls; no lands it on its feet",
        (),
        "speed-meters/fall-table",
    ),
    Setting(
        "stand_up_actions",
        1,
        "actions it takes to stand up from prone, and to drop prone on purpose (house ruling: the "
        "document lands fallers prone but does not say how they rise)",
        (),
        "speed-meters/movement",
    ),
    Setting(
        "prone_move",
        "walk",
        "how a prone fighter moves (house default 'walk': the document lands fallers prone and "
        "never says; it walks its whole Speed at the normal cost without standing); 'stand-first': "
        "a Movement while prone is refused until it stands up (stand-up, stand_up_actions); "
        "'crawl': every meter costs 2, as a crawl does",
        ("walk", "stand-first", "crawl"),
        "speed-meters/movement",
    ),
    Setting(
        "body_height",
        2,
        "meters a fighter fills above where it stands; two fighters whose spans overlap share a space",
        (),
        "speed-meters/occupancy",
    ),
    Setting(
        "ledge_drop",
        "refuse",
        "a walk that steps off a drop of more than 1 m and does not land: 'refuse' it, or let the "
        "fighter 'fall'",
        ("refuse", "fall"),
        "speed-meters/jump",
    ),
    Setting(
        "jump_up_and_across",
        "either",
        "one jump across the air that lands on ground higher than its take-off (a shelf 1 m up): "
        "'either' refuses it, as the text reads ('1 meter vertically or 2 meters horizontally'); "
        "'both' allows it, the climb and the spaces crossed counted together as maneuver meters "
        "within the 2 m (1 m across + 1 m up)",
        ("either", "both"),
        "speed-meters/jump",
    ),
    Setting(
        "breath_rounds",
        3,
        "turns a swimmer can hold its breath underwater (house default; the document is silent)",
        (),
        "speed-meters/swim",
    ),
    Setting(
        "aquatic_breathes",
        True,
        "fighters adapted to water (tag 'aquatic') breathe underwater and never hold their breath",
        (),
        "speed-meters/swim",
    ),
    Setting(
        "hover_span",
        1,
        "spaces of a dip (a cut, a trench) a hover floats straight across at the height it came with "
        "when the ground beyond is as high again; 0: it follows the ground down into every dip",
        (),
        "speed-meters/hover",
    ),
    Setting(
        "hover_rise",
        1,
        "meters the ground may rise in one step under a hover that rises with it (house default)",
        (),
        "speed-meters/hover",
    ),
    Setting(
        "glide_descent",
        1,
        "meters a glider sinks at each turn start while it moves across (house default)",
        (),
        "speed-meters/glide",
    ),
    Setting(
        "eye_height",
        1.5,
        "meters above its feet a fighter sees from, for line of sight (house default)",
        (),
        "speed-meters/teleport",
    ),
    Setting(
        "save_target",
        4,
        "the number a Save must reach to stop forced movement short of a hazard (house default)",
        (),
        "speed-meters/forced",
    ),
    Setting(
        "edge_is_hazard",
        True,
        "a drop of more than 1 m counts as a known hazard for forced movement's save",
        (),
        "speed-meters/forced",
    ),
    Setting(
        "random_numbering",
        "clockwise",
        "how the 8 neighbours are numbered for the 1d8: 'clockwise' 1 N, 2 NE ... 8 NW; "
        "'reading' 1 NW, 2 N, 3 NE, 4 W, 5 E, 6 SW, 7 S, 8 SE",
        ("clockwise", "reading"),
        "speed-meters/random",
    ),
    Setting(
        "grapple_reach",
        1,
        "meters within which a shove, push, pull or grab reaches its target (house default)",
        (),
        "speed-meters/shove",
    ),
    Setting(
        "fall_rounding",
        "down",
        "a fall between the 5 m marks takes the time of the mark 'down' (7 m as 5 m) or 'up' "
        "(7 m as 10 m); a fall under 5 m takes none",
        ("down", "up"),
        "speed-meters/fall-speed",
    ),
    Setting(
        "off_turn_fall",
        "next-turn",
        "a fall outside the faller's own turn takes its time (by its length) from the faller's "
        "'next-turn' (house default; several such falls before that turn take the longer one's "
        "time, as they overlap in it), or 'none'",
        ("next-turn", "none"),
        "speed-meters/fall-speed",
    ),
    Setting(
        "fall_mid_turn",
        "remaining",
        "a fall landing part-way through the faller's own turn: 'remaining' (house default: the "
        "text's 'this much of your turn remaining', 1/2 of the total Actions after 10 m, caps what is "
        "left, so actions already used count toward it) or 'taken' (the fall's share of the total "
        "comes off the actions left)",
        ("remaining", "taken"),
        "speed-meters/fall-speed",
    ),
)

STATS = (
    Stat("speed", "meters per Movement action", length=True),
    Stat("actions", "actions per turn; the actions_per_turn setting when not given", default=0),
    Stat("brawn", "Brawn, added to climbing, grappling and escape rolls", default=0),
    Stat("swim", "Swim (n): meters per swimming Movement; Speed when not given", length=True, default=0),
    Stat(
        "climb",
        "Climb (n): meters per climbing Movement; half Speed (min 1) when not given",
        length=True,
        default=0,
    ),
    Stat("fly", "Fly (n): meters per flying Movement; none when not given", length=True, default=0),
    Stat("hover", "Hover (n): meters per hovering Movement; none when not given", length=True, default=0),
    Stat(
        "glide",
        "Glide (n): a fighter with it may glide; the glide moves the document's 5 m across at each "
        "turn start whatever n is",
        length=True,
        default=0,
    ),
    Stat("jump", "Jump (n): meters per special-jump Movement; none when not given", length=True, default=0),
    Stat(
        "teleport",
        "Teleport (n): the teleport's range in meters; none when not given",
        length=True,
        default=0,
    ),
)
