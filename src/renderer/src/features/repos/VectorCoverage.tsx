import { useEffect, useState } from 'react';
import type { RepoInfo, SearchStatus } from '../../../../shared/contract';
import { client } from '../../lib/client';
import { toOpError, type OpError } from '../../lib/errors';
import { runsSelectors, useRunsStore } from '../runs/store';
import { embedderLabel } from '../../lib/productWords';

/** Chunks with a vector of the default embedder, out of all chunks, from `search/status`. */
export function coverageOf(status: SearchStatus): { vectors: number; chunks: number; percent: number } {
  const vectors = status.embedders.find((e) => e.embedderId === status.defaultEmbedderId)?.vectors ?? 0;
  const percent = status.chunks === 0 ? 100 : Math.floor((vectors / status.chunks) * 100);
  return { vectors, chunks: status.chunks, percent };
}

/**
 * One line under a repository's name: how many of its chunks have vectors (what semantic and
 * hybrid search can see) and "Embed now" while some have none. Asked again after each index and
 * each embedding run of the repository.
 */
export function VectorCoverage(props: { repo: RepoInfo }) {
  const { repo } = props;
  const run = useRunsStore(runsSelectors.activeRepoRun(repo.id));
  const [status, setStatus] = useState<SearchStatus | null>(null);
  const [error, setError] = useState<OpError | null>(null);
  const [isStarting, setStarting] = useState(false);
  const runKey = run ? `${run.kind}:${run.runId}` : 'idle';
  const indexed = repo.lastIndexedAt !== null;

  useEffect(() => {
    if (!indexed) return;
    let live = true;
    client()
      .call('search/status', { repoId: repo.id })
      .then(
        (s) => {
          if (!live) return;
          setStatus(s);
          setError(null);
        },
        (e: unknown) => {
          if (live) setError(toOpError(e));
        },
      );
    return () => {
      live = false;
    };
  }, [repo.id, repo.lastIndexedAt, indexed, runKey]);

  if (!indexed || (!status && !error)) return null;
  if (error) {
    return (
      <div className="vector-coverage error-text" data-testid="vector-coverage">
        Vectors unknown: {error.message}
      </div>
    );
  }
  const { vectors, chunks, percent } = coverageOf(status!);
  const complete = vectors >= chunks;
  const isEmbedding = run?.kind === 'embed' || status!.embedding;
  const embedNow = async () => {
    setStarting(true);
    try {
      const { run } = await client().call('search/embed', { repoId: repo.id });
      // The row shows the run's progress (and its Cancel) like an index run's.
      useRunsStore.getState().track(run);
    } catch (e) {
      setError(toOpError(e));
    } finally {
      setStarting(false);
    }
  };
  const auto = status!.autoEmbed ? 'Embedded by itself after each index.' : 'Embedding after each index is off ([retrieval] embeddings in Settings).';
  return (
    <div className="vector-coverage muted" data-testid="vector-coverage" title={`Vectors of ${embedderLabel(status!.defaultEmbedderId)}: what semantic and hybrid search can see. ${auto}`} onClick={(event) => event.stopPropagation()}>
      <span className="mono" data-testid="vector-coverage-figures">
        {complete ? `vectors: all ${chunks.toLocaleString()} chunks` : `vectors: ${vectors.toLocaleString()} of ${chunks.toLocaleString()} chunks (${percent}%)`}
      </span>
      {isEmbedding ? <span> · embedding…</span> : null}
      {!complete && !isEmbedding ? (
        <button type="button" className="link-button" disabled={isStarting || run?.kind === 'index'} onClick={() => void embedNow()}>
          Embed now
        </button>
      ) : null}
    </div>
  );
}
