"""Seeded random query generators for differential tests: each returns SQL over a ``{t}`` table."""
