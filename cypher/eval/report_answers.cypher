// What the HTML report shows per judged answer of one run: the answer text, this run's path
// verdicts (with reasons and the sentence the judge matched per edge) and its claims.
MATCH (a:Answer)-[:JUDGED_IN]->(:Run {uid: $uid})
MATCH (a)-[:FOR]->(q:Question)
RETURN q.uid AS question, a.uid AS answer, a.text AS text,
       [(v:Verdict)-[:OF]->(a) WHERE v.run = $uid |
        {path: [(v)-[:ON]->(p:Path) | p.uid][0], present: v.present, partial: v.partial,
         edges_present: v.edges_present, edge_sentences: v.edge_sentences,
         reason: v.reason}] AS verdicts,
       [(c:Claim)-[:OF]->(a) WHERE c.run = $uid |
        {pos: c.pos, text: c.text, supported: c.supported, supporting: c.supporting}] AS claims
ORDER BY q.domain, q.id
