import type { KnowledgeBase } from '../kb/knowledgeBase';
import type { FilePrior } from './graph';
import type { FileHit } from './keyword';
import { round } from './keyword';
import { quoteFts, withoutStopWords, type ParsedQuery } from './query';
import { HISTORY, KEYWORD } from './rankingConstants';

/** What the history ranker found for one file: its score and the best past commit that changed it. */
interface HistoryHit {
  score: number;
  commits: number;
  best: { sha: string; message: string; score: number };
}

/**
 * Files changed by past commits whose messages read like the query (BM25 over the commit
 * messages of the indexed history): a task is often the next step of earlier work on the same
 * subsystem, and the earlier commits' messages name it in the task's own words ("identifier
 * pattern", "gzip", "server sent events") where the code may not. Each of the `HISTORY.commits`
 * best commits gives each file it changed its share of the best match, divided by (files it
 * changed)^`HISTORY.sizePower`, so a mass refactor says little about any one file; commits that
 * changed more than `HISTORY.maxFiles` paths are left out. Scores per file id, best = 1.
 */
export function historyRanking(kb: KnowledgeBase, query: ParsedQuery): Map<number, HistoryHit> {
  const words = [...new Set((withoutStopWords(query.text).match(/[\p{L}\p{N}]+/gu) ?? []).map((w) => w.toLowerCase()))].slice(0, HISTORY.maxTerms);
  const out = new Map<number, HistoryHit>();
  if (words.length === 0 || HISTORY.share <= 0) return out;
  const expression = words.map(quoteFts).join(' OR ');
  const commits = kb.searchIndex.similarCommits(expression, HISTORY.commits);
  const bestCommit = commits[0]?.score ?? 0;
  if (bestCommit <= 0) return out;
  for (const commit of commits) {
    if (commit.paths === 0 || commit.paths > HISTORY.maxFiles) continue;
    const part = commit.score / bestCommit / Math.pow(commit.paths, HISTORY.sizePower);
    for (const fileId of commit.fileIds) {
      const hit = out.get(fileId);
      if (!hit) out.set(fileId, { score: part, commits: 1, best: commit });
      else {
        hit.score += part;
        hit.commits++;
      }
    }
  }
  const best = Math.max(0, ...[...out.values()].map((h) => h.score));
  for (const hit of out.values()) hit.score = best > 0 ? hit.score / best : 0;
  return out;
}

/**
 * Fuse the history ranker into a finished ranking the way whole-file BM25 is fused, over the files
 * the query wants (prior 1: code, and tests, docs or configuration only when the query asks for
 * them): a changelog, a CI file or a test changes with nearly every commit, so past commits say
 * nothing about them. Each such file gains its history score as a share of the best such file ×
 * `HISTORY.share` × the best score in the ranking; files only this ranker finds enter the ranking;
 * a strong share is given as a reason naming the best matching past commit.
 */
export function applyHistory(kb: KnowledgeBase, query: ParsedQuery, files: Map<number, FileHit>, prior: FilePrior): void {
  const wanted = [...historyRanking(kb, query)].filter(([fileId]) => prior(fileId) >= 1);
  const best = Math.max(0, ...wanted.map(([, hit]) => hit.score));
  if (best <= 0) return;
  const top = Math.max(0, ...[...files.values()].map((f) => f.score)) || 1;
  for (const [fileId, hit] of wanted) {
    const share = hit.score / best;
    let file = files.get(fileId);
    if (!file) {
      file = { fileId, score: 0, chunks: [], why: [] };
      files.set(fileId, file);
    }
    file.score += top * HISTORY.share * share;
    if (share >= KEYWORD.reasonShare) {
      file.why.push({ kind: 'past-commits', detail: { score: round(share), commits: hit.commits, sha: hit.best.sha, message: firstLine(hit.best.message) } });
    }
  }
}

/** The subject line of a commit message, at most 120 characters. */
function firstLine(message: string): string {
  const line = message.split('\n', 1)[0]!.trim();
  return line.length > 120 ? `${line.slice(0, 119)}…` : line || '(no message)';
}

