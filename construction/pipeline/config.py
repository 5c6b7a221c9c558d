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
    # Reduce the embeddings before HDBSCAN (False: cluster the raw vectors). "umap" is the
    # published pipeline's UMAP (its numba JIT is cached on disk); "spectral", a Laplacian
    # eigenmap of the kNN graph (scikit-learn, ~1 s), is faster but finds half the concepts.
    use_umap: bool = True
    # "auto": spectral below `spectral_below_facts` facts (the demo's 148 facts: 9 concepts and
    # 6 questions, where UMAP left 0), UMAP above (physics: 19 concepts and 80 questions, where
    # the spectral reduction found 11 and 4).
    reducer: Literal["auto", "spectral", "umap"] = "auto"
    spectral_below_facts: int = 300
    spectral_components: int = 5
    umap_neighbors: int = 15
    umap_components: int = 5
    umap_min_dist: float = 0.0
    seed: int = 42
    min_cluster_size: int = 10
    min_samples: int | None = None
    # "leaf" keeps the fine-grained clusters; "eom" merges a textbook into a few broad ones.
    # None: the reducer's own (UMAP: leaf; spectral: eom, which keeps the outlier share near
    # 25% where leaf leaves 30-70% of the facts unclustered).
    cluster_selection: Literal["leaf", "eom"] | None = None
    # Above this share of unclustered facts the build warns (the concepts miss the text).
    max_outlier_share: float = Field(0.3, ge=0, le=1)
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
    # Offline: labels per ordered concept pair, and the cue score a label needs (1.0 = one
    # relation cue between the two mentions; qualified labels also need their qualifier).
    offline_max_relations: int = 3
    offline_min_label_score: float = 1.0
    # 7. paths and perspectives
    max_hops: int = Field(3, ge=1, le=3)
    # None = the route's default: the published rules (1 hop: >= 3 parallel relations; multi
    # hop: 4-14 combinations) for a model's graph; 2 and 2 offline, where every edge needs a
    # sentence that states it and parallel relations are rarer.
    one_hop_min_relations: int | None = None
    multi_hop_min_combinations: int | None = None
    multi_hop_max_combinations: int = 14
    # 8. questions: at most this many per build generation (None or 0 = one per perspective),
    # shared among the hops in the paper's proportions (`question_budget.py`); about the
    # published benchmark's size per domain (Table 1: 333 physics, 328 biology).
    max_questions: int | None = Field(333, ge=0)
    # 9. focused evidence
    evidence_per_question: int = 4
    # LLM: `kg build --concurrency`, the builder model client's limit of calls in flight (the
    # client enforces it; recorded here with the other settings of the Run)
    concurrency: int = 4

    def group_rules(self, offline: bool) -> tuple[int, int, int]:
        """(1-hop min parallel relations, multi-hop min and max combinations)."""
        one = self.one_hop_min_relations or (2 if offline else 3)
        multi = self.multi_hop_min_combinations or (2 if offline else 4)
        return one, multi, self.multi_hop_max_combinations

    def reducer_for(self, n_facts: int) -> Literal["spectral", "umap"]:
        if self.reducer != "auto":
            return self.reducer
        return "spectral" if n_facts < self.spectral_below_facts else "umap"

    def selection(self, n_facts: int = 10**9) -> Literal["leaf", "eom"]:
        if self.cluster_selection is not None:
            return self.cluster_selection
        return "eom" if self.use_umap and self.reducer_for(n_facts) == "spectral" else "leaf"

    def scaled_min_cluster_size(self, n_facts: int) -> int:
        """HDBSCAN needs smaller clusters on small corpora: about 1/25 of the facts, >= 3."""
        return max(3, min(self.min_cluster_size, n_facts // 25))
