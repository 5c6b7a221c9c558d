// `--from-stage evidence`: remove a domain's focused evidence links.
MATCH (:Question {domain: $domain})-[e:EVIDENCE]->(:Fact)
DELETE e
