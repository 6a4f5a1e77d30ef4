"""Battle maps: Universal VTT and Foundry imports, walls and doors drawn by `show`."""
