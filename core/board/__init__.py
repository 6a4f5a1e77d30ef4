"""The board: numbers, the grid, walls and doors on cell edges, sight, the encounter state, and how a
rule says no. The lowest layer of core: it imports nothing of core above it.
"""
