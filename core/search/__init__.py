"""The searches: kept step prices, the reachable area (step by step, and compiled), the way round.
They ask a ruleset its step policy through the registry; imports the layers below.
"""
