// PERSPECTRA node and edge counts.
RETURN COUNT { (:DebateTopic) } AS topics,
       COUNT { (:Opinion) } AS opinions,
       COUNT { (:Comment) } AS comments,
       COUNT { (:Expansion) } AS expansions,
       COUNT { ()-[:MATCHED]->() } AS matches,
       COUNT { ()-[:STYLED_ON]->() } AS styled_on,
       COUNT { ()-[:CANDIDATE_FOR]->() } AS candidates,
       COUNT { (:TaskItem) } AS task_items
