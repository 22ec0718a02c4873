/**
 * Building the summary tree (RAPTOR, docs/design.md, Summary tree): files are clustered by their
 * vectors (the unit mean of their chunks' vectors), each cluster is summarised by the model
 * assigned to the `summarize` stage, the summaries are embedded and clustered again, level by
 * level, until one cluster remains. Files rather than chunks form the first level: a chunk-level
 * tree would cost one model call per ~8 chunks (thousands on a large repository); per file it is
 * one call per ~8 files. A summary whose members did not change since the last build is reused,
 * so a rebuild after a small change calls the model only for the clusters it touched.
 */
import { nodeCrypto } from '../../platform/nodeModules';
import { AppError } from '../../../shared/contract';
import type { KnowledgeBase } from '../kb/knowledgeBase';
import type { CallLogger, CallOptions, Completion } from '../../platform/llm/types';
import { throwIfAborted } from '../../platform/runtime/runs';
import type { Embedder } from '../search/embedder';
import { clusterVectors } from './cluster';
import type { Summary, SummaryStore } from './store';

/** Members per cluster the tree aims at. */
export const CLUSTER_SIZE = 8;
/** Levels at most (level 1 = clusters of files). */
export const MAX_LEVELS = 4;
/** Characters of one file's description in a level-1 prompt. */
const FILE_CHARS = 900;

const SYSTEM = 'You summarise source code for a search index. Answer with the summary only: 2–4 sentences, plain text, naming the files, main classes and functions and what they are for. No preamble, no lists, no code.';

/** What a build needs. */
export interface BuildSummariesInput {
  kb: KnowledgeBase;
  store: SummaryStore;
  embedder: Embedder;
  complete(prompt: string, options: CallOptions): Promise<Completion>;
  runId?: string;
  log?: CallLogger;
  signal?: AbortSignal;
  onProgress?(progress: { phase: string; done: number; total: number }): void;
}

/** What a build did. */
export interface BuildSummariesResult {
  levels: Array<{ level: number; summaries: number }>;
  /** Summaries written by the model in this build. */
  summarized: number;
  /** Summaries kept from the previous build (their members unchanged). */
  reused: number;
}

interface Node {
  /** What identifies the node's content: a file's content hash, or a summary's member key. */
  key: string;
  files: string[];
  vector: Float32Array;
  /** What a parent's prompt shows of it. */
  describe(): string;
}

const hashOf = (parts: readonly string[]) => nodeCrypto().createHash('sha256').update([...parts].sort().join('\n')).digest('hex').slice(0, 24);

/** A file as a level-1 prompt shows it: path, module doc, top-level symbols with their signatures. */
function describeFile(kb: KnowledgeBase, fileId: number, path: string): string {
  const docs = kb.getDocstringsForFile(fileId);
  const symbols = kb.getSymbolsForFile(fileId).filter((s) => s.parentId === null);
  const lines = [`### ${path}`];
  if (docs.moduleDoc) lines.push(docs.moduleDoc.split('\n')[0]!.slice(0, 200));
  for (const s of symbols) lines.push(`- ${s.kind} ${s.signature || s.name}${s.docstring ? `: ${s.docstring.split('\n')[0]!.slice(0, 120)}` : ''}`);
  return lines.join('\n').slice(0, FILE_CHARS);
}

function cleanSummary(text: string): string {
  return text.replace(/<think>[\s\S]*?(<\/think>|$)/gi, '').trim();
}

/** Build (or rebuild) the repository's summary tree. Refused when the index has no vectors for `embedder`. */
export async function buildSummaries(input: BuildSummariesInput): Promise<BuildSummariesResult> {
  const { kb, store, embedder, signal } = input;
  const vectors = kb.vectorStore(embedder.id);
  if (!vectors || vectors.count() === 0) {
    throw new AppError('VALIDATION', `The index has no vectors for ${embedder.id}; summaries cluster files by their vectors. Embed the repository first (Embed now on the Repositories page, or cra embed).`);
  }
  const previous = new Map((store.embedderId() === embedder.id ? store.all() : []).map((s) => [`${s.level}:${s.memberKey}`, s]));
  const means = vectors.fileMeans();
  const files = kb.getFiles().filter((f) => means.has(f.id));
  let nodes: Node[] = files.map((f) => ({ key: f.contentHash ?? `${f.path}:${f.size}`, files: [f.path], vector: means.get(f.id)!, describe: () => describeFile(kb, f.id, f.path) }));

  const built: Array<Omit<Summary, 'id'>> = [];
  let summarized = 0;
  let reused = 0;
  for (let level = 1; level <= MAX_LEVELS && nodes.length > 1; level++) {
    throwIfAborted(signal);
    const assignment = clusterVectors(nodes.map((n) => n.vector), CLUSTER_SIZE, { seed: level });
    const clusters: Node[][] = [];
    assignment.forEach((c, i) => (clusters[c] ??= []).push(nodes[i]!));
    const next: Node[] = [];
    for (const [index, members] of clusters.entries()) {
      throwIfAborted(signal);
      input.onProgress?.({ phase: `level ${level}`, done: index, total: clusters.length });
      const memberKey = hashOf(members.map((m) => m.key));
      const memberFiles = [...new Set(members.flatMap((m) => m.files))].sort();
      let summary = previous.get(`${level}:${memberKey}`);
      if (summary) reused++;
      else {
        const prompt = `${level === 1 ? 'Summarise what these files do together.' : 'Summarise what these parts of the repository do together.'}\n\n${members.map((m) => m.describe()).join('\n\n')}`;
        const reply = await input.complete(prompt, { stage: 'summarize', system: SYSTEM, think: false, temperature: 0, maxTokens: 300, runId: input.runId, log: input.log, signal });
        const text = cleanSummary(reply.text);
        if (!text) throw new AppError('MODEL_ERROR', `The summarize model returned an empty summary for ${memberFiles.slice(0, 3).join(', ')}; try another model for the summarize stage.`);
        const [vector] = await embedder.embed([text], signal);
        summary = { id: 0, level, memberKey, text, files: memberFiles, vector: vector!, model: reply.model, builtAt: new Date().toISOString() };
        summarized++;
      }
      built.push({ level, memberKey, text: summary.text, files: memberFiles, vector: summary.vector, model: summary.model, builtAt: summary.builtAt });
      const text = summary.text;
      next.push({ key: memberKey, files: memberFiles, vector: summary.vector, describe: () => `### ${memberFiles.length} files (${memberFiles.slice(0, 4).join(', ')}${memberFiles.length > 4 ? ', …' : ''})\n${text}` });
    }
    input.onProgress?.({ phase: `level ${level}`, done: clusters.length, total: clusters.length });
    nodes = next;
  }
  throwIfAborted(signal);
  store.replace(embedder.id, built);
  return { levels: store.levels(), summarized, reused };
}
