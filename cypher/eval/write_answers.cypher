// Answers of one batch (MERGE on the uid = hash(run, question[, variant]): a resumed run never
// duplicates). Variant and confidence fields are null when the answer has none.
UNWIND $rows AS row
MATCH (q:Question {uid: row.question})
MATCH (r:Run {uid: $run})
MERGE (a:Answer {uid: row.uid})
ON CREATE SET a.text = row.text, a.tokens = row.tokens, a.tokens_source = row.tokens_source,
              a.prompt_tokens = row.prompt_tokens, a.context = row.context, a.model = row.model,
              a.run = $run, a.created_at = $now,
              a.sample = row.sample, a.context_variant = row.context_variant,
              a.perturbation = row.perturbation, a.formulated = row.formulated,
              a.hint_path = row.hint_path, a.decoder_point = row.decoder_point,
              a.formulation = row.formulation, a.decoder = row.decoder,
              a.confidence = row.confidence, a.low_confidence_share = row.low_confidence_share,
              a.logprob_tokens = row.logprob_tokens
MERGE (a)-[:FOR]->(q)
MERGE (a)-[:IN_RUN]->(r)
