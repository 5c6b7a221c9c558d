// Resume state of `kg build`: one BuildStep per (domain, stage, item).
CREATE CONSTRAINT build_step_uid IF NOT EXISTS FOR (n:BuildStep) REQUIRE n.uid IS UNIQUE;
CREATE INDEX build_step_domain_stage IF NOT EXISTS FOR (n:BuildStep) ON (n.domain, n.stage);
CREATE CONSTRAINT perspective_uid IF NOT EXISTS FOR (n:Perspective) REQUIRE n.uid IS UNIQUE;
CREATE INDEX chunk_domain IF NOT EXISTS FOR (n:Chunk) ON (n.domain);
CREATE INDEX path_domain IF NOT EXISTS FOR (n:Path) ON (n.domain);
