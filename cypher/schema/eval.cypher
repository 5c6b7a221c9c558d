// Indexes of the evaluation area: verdicts and claims are looked up by the run that judged them.
CREATE INDEX verdict_run IF NOT EXISTS FOR (n:Verdict) ON (n.run);
CREATE INDEX claim_run IF NOT EXISTS FOR (n:Claim) ON (n.run);
CREATE INDEX run_kind IF NOT EXISTS FOR (n:Run) ON (n.kind);
