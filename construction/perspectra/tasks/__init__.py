"""PERSPECTRA task sets (T1 counting, T2 matching, T3 polarity): seeded builders from the
corpus and the writer of their items."""
