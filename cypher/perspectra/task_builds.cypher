// Every stored build: task, id, seed, item count.
MATCH (i:TaskItem)
RETURN i.task AS task, i.build AS build, min(i.seed) AS seed, count(*) AS items
ORDER BY task, build
