"""`kg build`: a domain's text -> facts -> concepts -> labeled edges -> paths -> perspectives ->
questions -> focused evidence, stored in Neo4j with per-item resume state and provenance.

One module per stage, each holding a `Stage` (`stage.py`) with an offline implementation
(heuristics and the local embedding model) and, where the paper uses a model, an LLM one through
`kg.llm`. `STAGE_TABLE` is the one list of stages: the runner walks it in this order.
"""

# name -> `module:Class` of its Stage, in build order (imported when the build runs).
STAGE_TABLE: dict[str, str] = {
    "chunks": "construction.pipeline.chunks:Chunks",
    "facts": "construction.pipeline.facts:Facts",
    "embeddings": "construction.pipeline.embeddings:Embeddings",
    "clusters": "construction.pipeline.clustering:Clusters",
    "concepts": "construction.pipeline.concepts:Concepts",
    "pairs": "construction.pipeline.pairs:Pairs",
    "relations": "construction.pipeline.relations:Relations",
    "paths": "construction.pipeline.paths:Paths",
    "questions": "construction.pipeline.questions:Questions",
    "evidence": "construction.pipeline.evidence:Evidence",
}
STAGES = tuple(STAGE_TABLE)
