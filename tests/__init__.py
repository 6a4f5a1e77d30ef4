"""tabletrail's tests, in folders that mirror the code (a package: same-named files collect apart)."""
