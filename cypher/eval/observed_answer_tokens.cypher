// What a responder's replies really cost in earlier runs (`kg eval plan`'s completion estimate):
// the mean completion tokens its stored answers report from the server's usage.
MATCH (r:Run)
WHERE $responder IN r.models
MATCH (a:Answer)-[:IN_RUN]->(r)
WHERE a.tokens_source = 'usage'
RETURN count(a) AS answers, avg(a.tokens) AS mean_tokens
