"""Scoring: from stored verdicts and claims to numbers.

metrics.py          PPrec/PRec/PAS (all-or-nothing and partial), faithfulness, hop weighting
question_scores.py  per-question scores of a run, read from the graph
aggregate.py        tables per hop/overall/domain/theme with bootstrap CIs
"""
