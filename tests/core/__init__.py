"""The rules engine shared by every ruleset (core/): walls, doors, reach, sight, dice, rulings."""
