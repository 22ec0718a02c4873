/**
 * The precision stage's deterministic part: which symbols of the files scope kept are judged, in
 * what order, and what the judge sees of each. No model call here.
 */
import type { Reason } from '../../../shared/contract/reasons';
import type { KnowledgeBase } from '../../kb/knowledgeBase';
import type { SymbolRecord } from '../../kb/types';
import type { ContextFile } from '../stage';
import type { TaskRecord } from '../taskAnalysis';

/** One symbol candidate: the record, its file, and how it was found. */
export interface SymbolCandidate {
  symbol: SymbolRecord;
  file: ContextFile;
  /** named-in-task / symbol-link; empty for the file's other symbols. */
  found: Reason[];
  /** Named in the task: relevant without a pass-1 judgment (as seed files skip scope's). */
  named: boolean;
}

const lower = (s: string) => s.toLowerCase();

/**
 * Deterministic symbol extraction over the files scope kept: each file's top-level symbols and
 * methods from the index; first those the task names (extraction or enrichment), then those linked
 * by a reference to a named symbol (calls it or is called by it), then the rest in source order.
 */
export function symbolCandidates(kb: KnowledgeBase, task: TaskRecord, files: readonly ContextFile[]): SymbolCandidate[] {
  const namedTexts = [...task.extraction.symbols.map((s) => s.text), ...(task.enrichment.status === 'ok' ? task.enrichment.symbols : [])];
  const named = new Map<string, string>();
  for (const t of namedTexts) {
    named.set(lower(t), t);
    // `Parser.parse` names `parse` in class Parser; a bare tail matches too.
    const tail = t.split('.').pop();
    if (tail && !named.has(lower(tail))) named.set(lower(tail), t);
  }
  const perFile = files.map((file) => ({ file, symbols: kb.getSymbolsForFile(file.fileId).filter((s) => s.parentId === null || s.kind === 'method') }));
  const namedOf = (s: SymbolRecord) => named.get(lower(s.qualifiedName)) ?? named.get(lower(s.name));
  // Links: every symbol reached by one reference edge from a named symbol anywhere in the kept files.
  const links = new Map<number, Reason>();
  for (const { symbols } of perFile) {
    for (const s of symbols) {
      const text = namedOf(s);
      if (!text) continue;
      for (const n of kb.getSymbolNeighbors(s.id, 'both')) {
        if (n.symbol && !links.has(n.symbol.id)) links.set(n.symbol.id, { kind: 'symbol-link', detail: { symbol: s.qualifiedName, direction: n.direction === 'outgoing' ? 'called-by' : 'calls' } });
      }
    }
  }
  const words = taskWords(task);
  const out: Array<SymbolCandidate & { rank: number; evidence: number; order: number }> = [];
  let order = 0;
  for (const { file, symbols } of perFile) {
    const evidence = words.size ? symbolEvidence(kb, file.fileId, symbols, words) : new Map<number, number>();
    for (const s of symbols) {
      const text = namedOf(s);
      const link = links.get(s.id);
      const found: Reason[] = text ? [{ kind: 'named-in-task', detail: { text } }] : link ? [link] : [];
      out.push({ symbol: s, file, found, named: Boolean(text), rank: text ? 0 : link ? 1 : 2, evidence: evidence.get(s.id) ?? 0, order: order++ });
    }
  }
  return out.sort((a, b) => a.rank - b.rank || b.evidence - a.evidence || a.order - b.order).map(({ rank: _r, evidence: _e, order: _o, ...c }) => c);
}

/** The task's words worth matching in code: its keywords and the parts of the identifiers it names, 3+ letters. */
function taskWords(task: TaskRecord): Set<string> {
  const words = new Set<string>();
  const add = (w: string) => {
    const x = w.toLowerCase();
    if (x.length >= 3) words.add(x);
  };
  for (const k of task.extraction.keywords) add(k);
  for (const s of task.extraction.symbols) for (const part of s.text.split(/[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])/)) add(part);
  return words;
}

/**
 * How much of the task a symbol's own code mentions: the number of distinct task words found in the
 * lines of its chunks (its name, signature, body). Orders a file's unnamed symbols, so the ones the
 * task is about are judged before the caps are reached, instead of the file's first in source order.
 */
function symbolEvidence(kb: KnowledgeBase, fileId: number, symbols: readonly SymbolRecord[], words: ReadonlySet<string>): Map<number, number> {
  const chunks = kb.getChunksOfFile(fileId);
  const out = new Map<number, number>();
  for (const s of symbols) {
    const seen = new Set<string>();
    for (const c of chunks) {
      if (c.endLine < s.startLine || c.startLine > s.endLine) continue;
      const lines = c.text.split('\n').slice(Math.max(0, s.startLine - c.startLine), Math.max(0, s.endLine - c.startLine + 1));
      for (const token of lines.join('\n').toLowerCase().split(/[^a-z0-9]+/)) if (words.has(token)) seen.add(token);
      // Identifiers in camelCase or snake_case: their parts count too.
      for (const id of lines.join('\n').match(/[A-Za-z][A-Za-z0-9_]{2,}/g) ?? []) for (const part of id.split(/_|(?<=[a-z0-9])(?=[A-Z])/)) if (words.has(part.toLowerCase())) seen.add(part.toLowerCase());
    }
    out.set(s.id, seen.size);
  }
  return out;
}

/** What the judge sees of a symbol: where it is, its signature, docstring and rationale comments. */
export function describeSymbol(kb: KnowledgeBase, c: SymbolCandidate, rationale: Map<number, string[]>): string {
  const s = c.symbol;
  const doc = s.docstring?.split('\n')[0]?.trim();
  const notes = rationale.get(s.id) ?? [];
  return [`symbol: ${s.qualifiedName} (${s.kind})`, `file: ${s.path}:${s.startLine}-${s.endLine}`, `signature: ${s.signature || s.name}`, doc ? `doc: ${doc}` : '', notes.length ? `notes:\n${notes.map((n) => `  ${n}`).join('\n')}` : ''].filter(Boolean).join('\n');
}
