"""The audit (projections/audit/): explain, verify, what-if, rulings, the undo policy."""
