// A build run: what was run with what (never an API key).
MERGE (r:Run {uid: $uid})
SET r.kind = 'build', r.domain = $domain, r.models = $models, r.roles = ['builder'],
    r.config = $config, r.prompt_hashes = $prompt_hashes, r.version = $version,
    r.stages = $stages, r.status = 'running', r.started_at = $now
