// The answers a responder run stored (re-judged without asking the responder again); answers
// written before variants existed have no sample: they are sample 0.
MATCH (a:Answer)-[:IN_RUN]->(:Run {uid: $uid})
MATCH (a)-[:FOR]->(q:Question)
RETURN a.uid AS answer, q.uid AS question, a.text AS text, a.tokens AS tokens,
       coalesce(a.sample, 0) AS sample, a.context_variant AS context_variant,
       a.perturbation AS perturbation, a.formulation AS formulation,
       a.formulated AS formulated, a.hint_path AS hint_path, a.decoder_point AS decoder_point
ORDER BY q.uid, sample, context_variant, formulation, decoder_point
