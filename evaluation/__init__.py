"""Evaluation: ask models the stored questions, judge path by path and claim by claim, score
PAS and faithfulness, report.

    spec.py       RunSpec: responder, judge, setting, strategy, ground truth, selection, run id
    questions.py  questions (+ valid paths, evidence, concept summaries) read from the graph
    contexts.py   what the responder sees per setting (Base/Oracle/Noisy/RAG-BM25/RAG-dense)
                  and the faithfulness ground truth (--gt evidence|full)
    prompting.py  answer prompts per strategy (plain/one-shot/negative) from prompts/eval/
    responders.py the LLM responder and the offline baselines (cover-all/target-only/empty)
    judges/       LLM judge (path checklist, claims, relevancy) and the embedding baselines
    runner.py     the async pipeline: resume, batched atomic writes, failures counted
    runs.py       Run/Answer/Verdict/Claim in the graph (cypher/eval/)
    metrics.py    PPrec/PRec/PAS (all-or-nothing and partial), faithfulness, hop weighting
    scoring.py    per-question scores of a run from its stored verdicts and claims
    aggregate.py  tables per hop/overall/domain/theme with bootstrap CIs
    report.py     `kg eval report/compare/agreement`
    reporting/    generic tools: bootstrap, paired bootstrap, agreement, exporters, plots
    perspectra/   the PERSPECTRA tasks (another area)
"""
