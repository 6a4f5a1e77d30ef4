"""Map importers: battle maps from other tools (Universal VTT, Foundry VTT) as scenarios."""
