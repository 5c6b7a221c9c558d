// The texts of the given answers (C3: the embedding similarity of original and perturbed).
UNWIND $uids AS uid
MATCH (a:Answer {uid: uid})
RETURN a.uid AS answer, a.text AS text
