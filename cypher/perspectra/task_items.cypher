// The items of one task set (stored as TaskItem.build), in item order.
MATCH (i:TaskItem {build: $task_set})
RETURN i {.*} AS item
ORDER BY i.index
