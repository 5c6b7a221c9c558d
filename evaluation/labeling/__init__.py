"""The human labeling loop: sample a run's answers into an annotation task, label them in a
self-contained page, measure the annotators' agreement and merge their labels into a gold file
that `kg judge validate` reads."""
