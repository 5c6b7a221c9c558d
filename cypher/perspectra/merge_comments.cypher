// One Comment per distinct text; Reddit metadata, when a row has it, fills what is unknown.
UNWIND $rows AS r
MERGE (c:Comment {uid: r.uid})
SET c.text = r.text,
    c.author = coalesce(r.author, c.author),
    c.score = coalesce(r.score, c.score),
    c.distinguished = coalesce(r.distinguished, c.distinguished),
    c.subreddit = coalesce(r.subreddit, c.subreddit),
    c.thread = coalesce(r.thread, c.thread),
    c.reddit_id = coalesce(r.reddit_id, c.reddit_id),
    c.provenance = coalesce(c.provenance, r.source)
RETURN count(*) AS n
