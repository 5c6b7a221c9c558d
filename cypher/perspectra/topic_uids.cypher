// Which of the given topic uids exist.
MATCH (t:DebateTopic) WHERE t.uid IN $uids
RETURN t.uid AS uid
