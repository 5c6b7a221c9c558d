"""Robustness profiles (PROOF-style, `kg eval profile`): how an answer holds under variation.

profile.py        the profile of one run: formulations, decoders, consistency, FRS
report.py         the run's tables and its profile in one report, with plots
formulations.py   rewordings, an adversarial phrasing and a false hint per question
decoders.py       the decoder grid (`--decoders`) and its seeded question subset
perturbations.py  content-neutral context put before a question (C3)
consistency.py    C3 cross-contextual consistency (`--contexts C`)
frs.py            FRS aggregation of sampled answers (`--samples`)
confidence.py     token log-probabilities summarised into an answer's confidence
"""
