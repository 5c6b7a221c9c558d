"""PERSPECTRA tasks (T1 counting, T2 matching, T3 polarity): builders, parsers, metrics, runs."""
