"""The engine: what every ruleset shares (the `Ruleset` base, the walk, falls, doors, dice, state
machines, the GM's rulings) and the registry that finds the rulesets by id without importing
them. Imports the board and the fold.
"""
