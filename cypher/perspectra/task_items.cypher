// The items of one build, in build order.
MATCH (i:TaskItem {build: $build})
RETURN i {.*} AS item
ORDER BY i.index
