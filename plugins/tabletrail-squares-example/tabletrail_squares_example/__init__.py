"""squares-example: a small tabletrail ruleset, written as a template for authors.

Two modules: `vocabulary` (its commands and its declaration, read before any rule is
needed) and `rules` (the ruleset, composed of parts). docs/WRITING_A_RULESET.md in
tabletrail's repository walks through both. This file imports nothing, on purpose:
tabletrail imports the vocabulary to decode every log, and must not load the rules then.
"""
