// Earlier LLM builds' stage reports (`kg build --plan`'s estimates of the stages whose items
// come from earlier model replies): the model and the summary of each closed build run.
MATCH (r:Run {kind: 'build'})
WHERE r.summary IS NOT NULL AND NOT 'offline' IN coalesce(r.models, [])
RETURN r.models AS models, r.summary AS summary, r.config AS config
ORDER BY r.started_at DESC
LIMIT $limit
