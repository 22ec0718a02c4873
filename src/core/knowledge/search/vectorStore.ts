// Vectors live with the curated schema's owner (core/kb); re-exported for search and its tests.
export { embedderStatuses, VectorStore, vectorTableName } from '../kb/vectors';
