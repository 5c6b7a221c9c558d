"""Evaluation: ask models the stored questions, judge path by path and claim by claim, score
PAS and faithfulness, report. One folder a role; each folder's `__init__` lists its modules.

    models.py     typed contracts of the stages (questions in; answers, verdicts, claims out)
    runs/         what a run is (spec), the runner (resume, atomic batches), the run store
    responders/   the model under test and the offline baselines; prompts; contexts per setting
    judges/       path judges (edge evidence, LLM, embedding) and their validation against gold
    labeling/     the human labeling loop (`kg judge sample/annotate/agreement`)
    scoring/      metrics, per-question scores, per hop/domain/theme tables with CIs
    reporting/    `kg eval report/compare`, paper tables, and generic tools (bootstrap, plots)
    profiles/     PROOF-style robustness: formulations, decoders, consistency, FRS
    perspectra/   the PERSPECTRA tasks (another benchmark family)
"""
