// Candidate perspectives linked by SIMILAR (directly or through others) form one perspective.
CALL gds.wcc.stream($graph, {nodeLabels: ['Perspective'], relationshipTypes: ['SIMILAR']})
YIELD nodeId, componentId
RETURN nodeId AS group, componentId AS component
ORDER BY group
