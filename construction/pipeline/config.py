"""Every knob of a build, with the published benchmark's defaults. CLI options override fields."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class BuildConfig(BaseModel):
    domain: str
    # 1. chunks (plain-text input only; JSON chunk files are taken as they are)
    chunk_size: int = Field(1000, ge=100, description="characters per chunk for plain text")
    chunk_overlap: int = Field(150, ge=0)
    # 2. facts
    min_facts: int = 3
    max_facts: int = 7
    max_entities: int = 5
    # 3. embeddings
    embedding_model: str = "all-MiniLM-L6-v2"
    duplicate_cosine: float = Field(0.95, gt=0, le=1)
    # 4. clustering
    use_umap: bool = True
    umap_neighbors: int = 15
    umap_components: int = 5
    umap_min_dist: float = 0.0
    seed: int = 42
    min_cluster_size: int = 10
    min_samples: int | None = None
    # "leaf" keeps the fine-grained clusters; "eom" merges a textbook into a few broad ones.
    cluster_selection: Literal["leaf", "eom"] = "leaf"
    key_evidence: int = 10
    topic_words: int = 10
    # 5. candidate pairs
    min_pair_score: float = 4.0
    # The offline entities are plain keyphrases, so most concept pairs share one and reach the
    # score threshold; keeping each concept's best pairs keeps the graph readable (0 = all).
    top_k_pairs: int | None = 3
    proximity_window: int = 5
    soft_threshold: float = 0.05
    soft_min_facts: int = 3
    # 6. relations
    allow_new_relations: bool = False
    offline_max_relations: int = 3
    offline_margin: float = 0.06
    # 7. paths and perspectives
    max_hops: int = Field(3, ge=1, le=3)
    one_hop_min_relations: int = 3
    multi_hop_min_combinations: int = 4
    multi_hop_max_combinations: int = 14
    # 9. focused evidence
    evidence_per_question: int = 4
    # LLM
    concurrency: int = 4

    def scaled_min_cluster_size(self, n_facts: int) -> int:
        """HDBSCAN needs smaller clusters on small corpora: about 1/25 of the facts, >= 3."""
        return max(3, min(self.min_cluster_size, n_facts // 25))
