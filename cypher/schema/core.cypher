// Uniqueness constraints for every node key of the graph model (docs/graph-model.md),
// a full-text index on concept text and a vector index on fact embeddings. Idempotent.
CREATE CONSTRAINT domain_name IF NOT EXISTS FOR (n:Domain) REQUIRE n.name IS UNIQUE;
CREATE CONSTRAINT chunk_uid IF NOT EXISTS FOR (n:Chunk) REQUIRE n.uid IS UNIQUE;
CREATE CONSTRAINT fact_uid IF NOT EXISTS FOR (n:Fact) REQUIRE n.uid IS UNIQUE;
CREATE CONSTRAINT entity_uid IF NOT EXISTS FOR (n:Entity) REQUIRE n.uid IS UNIQUE;
CREATE CONSTRAINT concept_uid IF NOT EXISTS FOR (n:Concept) REQUIRE n.uid IS UNIQUE;
CREATE CONSTRAINT path_uid IF NOT EXISTS FOR (n:Path) REQUIRE n.uid IS UNIQUE;
CREATE CONSTRAINT question_uid IF NOT EXISTS FOR (n:Question) REQUIRE n.uid IS UNIQUE;
CREATE CONSTRAINT run_uid IF NOT EXISTS FOR (n:Run) REQUIRE n.uid IS UNIQUE;
CREATE CONSTRAINT answer_uid IF NOT EXISTS FOR (n:Answer) REQUIRE n.uid IS UNIQUE;
CREATE CONSTRAINT verdict_uid IF NOT EXISTS FOR (n:Verdict) REQUIRE n.uid IS UNIQUE;
CREATE CONSTRAINT claim_uid IF NOT EXISTS FOR (n:Claim) REQUIRE n.uid IS UNIQUE;
CREATE CONSTRAINT debate_topic_uid IF NOT EXISTS FOR (n:DebateTopic) REQUIRE n.uid IS UNIQUE;
CREATE CONSTRAINT opinion_uid IF NOT EXISTS FOR (n:Opinion) REQUIRE n.uid IS UNIQUE;
CREATE CONSTRAINT comment_uid IF NOT EXISTS FOR (n:Comment) REQUIRE n.uid IS UNIQUE;
CREATE CONSTRAINT expansion_uid IF NOT EXISTS FOR (n:Expansion) REQUIRE n.uid IS UNIQUE;
CREATE CONSTRAINT task_item_uid IF NOT EXISTS FOR (n:TaskItem) REQUIRE n.uid IS UNIQUE;
CREATE INDEX concept_domain_key IF NOT EXISTS FOR (n:Concept) ON (n.domain, n.key);
CREATE INDEX question_domain_id IF NOT EXISTS FOR (n:Question) ON (n.domain, n.id);
CREATE INDEX fact_domain IF NOT EXISTS FOR (n:Fact) ON (n.domain);
CREATE INDEX relates_label IF NOT EXISTS FOR ()-[r:RELATES]-() ON (r.label);
CREATE FULLTEXT INDEX concept_text IF NOT EXISTS FOR (n:Concept) ON EACH [n.key, n.summary, n.text];
CREATE VECTOR INDEX fact_embedding IF NOT EXISTS FOR (n:Fact) ON (n.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}};
