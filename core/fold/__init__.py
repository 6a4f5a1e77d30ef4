"""The fold: how events change the state (`evolve`), and a batch applying them as they are emitted.
Imports only the board.
"""
