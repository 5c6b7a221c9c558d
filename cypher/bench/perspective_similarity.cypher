// Jaccard similarity of candidate perspectives over the features they use, kept in memory as
// SIMILAR relationships for the component step.
CALL gds.nodeSimilarity.mutate($graph, {
  nodeLabels: ['Perspective', 'Feature'],
  relationshipTypes: ['USES'],
  similarityCutoff: $cutoff,
  topK: 100,
  mutateRelationshipType: 'SIMILAR',
  mutateProperty: 'score'
})
YIELD relationshipsWritten
RETURN relationshipsWritten
