"""Tests across every ruleset (conformance, API, plug-ins, presentation); a folder per built-in."""
