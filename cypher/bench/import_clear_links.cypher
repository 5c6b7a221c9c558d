// Drop the links of questions about to be (re)written, so a re-import replaces them exactly.
UNWIND $uids AS uid
MATCH (:Question {uid: uid})-[r:TARGET|DISTRACTOR|EVIDENCE|POOL]->()
DELETE r
