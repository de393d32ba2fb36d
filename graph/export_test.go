package graph

// EstimateChunkOps exposes estimateChunkOps to the external tests.
var EstimateChunkOps = estimateChunkOps
