"""Runs: what a run is, how it executes and resumes, and where it is stored.

spec.py           RunSpec: responder, judge, setting, strategy, ground truth, selection, run id
questions.py      questions (+ valid paths, evidence, concept summaries) read from the graph
runner.py         RunPlan, WorkItem and the async pipeline: resume, batched atomic writes
store.py          Run/Answer/Verdict/Claim in the graph (cypher/eval/)
record.py         EvalRunRecord: a run as read back, and the `kg eval runs` columns
history.py        one entry per session of a run (first run, resumes)
answer_import.py  answers produced by another harness, stored as a run's answers
jsonl_rows.py     JSON-lines input (answers, gold) read with file:line:field problems
"""
