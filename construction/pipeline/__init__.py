"""`kg build`: a domain's text -> facts -> concepts -> labeled edges -> paths -> perspectives ->
questions -> focused evidence, stored in Neo4j with per-item resume state and provenance.

One module per stage; `runner.py` wires them. Every stage has an offline route (heuristics and the
local embedding model) and, where the paper uses a model, an LLM route through `kg.llm`.
"""

STAGES = (
    "chunks",
    "facts",
    "embeddings",
    "clusters",
    "concepts",
    "pairs",
    "relations",
    "paths",
    "questions",
    "evidence",
)
