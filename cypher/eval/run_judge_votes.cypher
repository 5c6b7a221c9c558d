// A voting judge's votes in one run: per verdict the list of its valid votes' "present"
// (verdicts of unvoted judges hold none), and the ties and failed votes of the judged answers.
MATCH (r:Run {uid: $uid})
OPTIONAL MATCH (a:Answer)-[j:JUDGED_IN]->(r)
WITH r, collect(a) AS answers, sum(coalesce(j.vote_ties, 0)) AS ties,
     sum(coalesce(j.failed_votes, 0)) AS failed_votes
RETURN [a IN answers | [(v:Verdict)-[:OF]->(a) WHERE v.run = r.uid AND size(coalesce(v.votes, [])) > 0
         | v.votes]] AS per_answer, ties, failed_votes
