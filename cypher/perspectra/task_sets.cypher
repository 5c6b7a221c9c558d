// Every stored task set: task, id, seed, item count (the id is stored as TaskItem.build).
MATCH (i:TaskItem)
RETURN i.task AS task, i.build AS task_set, min(i.seed) AS seed, count(*) AS items
ORDER BY task, task_set
