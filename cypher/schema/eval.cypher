// Indexes of the evaluation area: verdicts and claims are looked up by the run that judged them.
CREATE INDEX verdict_run IF NOT EXISTS FOR (n:Verdict) ON (n.run);
CREATE INDEX claim_run IF NOT EXISTS FOR (n:Claim) ON (n.run);
CREATE INDEX run_kind IF NOT EXISTS FOR (n:Run) ON (n.kind);
CREATE CONSTRAINT judge_validation_uid IF NOT EXISTS FOR (n:JudgeValidation) REQUIRE n.uid IS UNIQUE;
CREATE INDEX judge_validation_judge IF NOT EXISTS FOR (n:JudgeValidation) ON (n.judge);
CREATE CONSTRAINT llm_batch_token IF NOT EXISTS FOR (n:LLMBatch) REQUIRE n.token IS UNIQUE;
CREATE INDEX llm_batch_scope IF NOT EXISTS FOR (n:LLMBatch) ON (n.scope);
