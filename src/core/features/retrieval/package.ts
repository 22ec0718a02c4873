import type { Reason } from '../../../shared/contract/reasons';
import { formatReasons } from '../../../shared/contract/reasons';
import type { KnowledgeBase } from '../../knowledge/kb/knowledgeBase';
import type { ContextPackage, DroppedItem, PackageFile, PackageItem } from '../../../shared/contract/retrieval';
import type { ContextFile, ContextSymbol } from './stage';
import { estimateTokens } from '../../../shared/tokens';
import { DEFAULT_SAFETY_MARGIN } from './budget';

export { DEFAULT_SAFETY_MARGIN, effectiveBudget, type BudgetConfig } from './budget';
export { estimateTokens };

export type { ContextPackage, DroppedItem, PackageFile, PackageItem } from '../../../shared/contract/retrieval';

/** What {@link buildPackage} needs. */
export interface PackageInput {
  task: { id: string; text: string };
  /** The last stage's files, in priority order (tier, then confidence). */
  files: readonly ContextFile[];
  budgetTokens: number;
  /** The file's current text (null when it cannot be read: its symbols fall back to signatures). */
  readSource(path: string): string | null;
  safetyMargin?: number;
  /** When given, the import edges among included files are listed. */
  kb?: KnowledgeBase;
  /** Groups of related files (similarity): a group's files are placed together, where its first file stands. */
  groups?: readonly string[][];
}

/** Files in priority order, except that a group's files follow its highest-priority member. */
export function orderByGroups<T extends { path: string }>(files: readonly T[], groups: readonly string[][] = []): T[] {
  const groupOf = new Map<string, number>();
  groups.forEach((g, i) => g.forEach((p) => {
    if (!groupOf.has(p)) groupOf.set(p, i);
  }));
  const out: T[] = [];
  const placed = new Set<T>();
  for (const f of files) {
    if (placed.has(f)) continue;
    const g = groupOf.get(f.path);
    const members = g === undefined ? [f] : files.filter((x) => groupOf.get(x.path) === g);
    for (const m of members) {
      if (placed.has(m)) continue;
      placed.add(m);
      out.push(m);
    }
  }
  return out;
}

const fence = (text: string) => (text.includes('```') ? '````' : '```');
const headerText = (task: string) => `# Context package\n\nTask: ${task.split('\n')[0]?.slice(0, 200) ?? ''}\n`;
const fileHeaderText = (f: Pick<PackageFile, 'path' | 'tier' | 'reasons'>) => `\n## ${f.path}\n\ntier ${f.tier} · ${formatReasons(f.reasons)}\n`;
const itemText = (path: string, item: Omit<PackageItem, 'tokens'>) => {
  const what = item.symbol ? ` · ${item.symbol.qualifiedName} (${item.symbol.role}, ${item.detail === 'full' ? 'full source' : 'signature'})` : ' (whole file)';
  const f = fence(item.text);
  return `\n### ${path}:${item.startLine}-${item.endLine}${what}\n${f}\n${item.text}\n${f}\n`;
};

/**
 * Fill the budget by priority: primary symbols in full source (demoted to their signature when
 * the body does not fit), then the signatures of supporting and type_context symbols, then the
 * supporting symbols' bodies where room is left (not one that would swallow a primary body), then
 * whole files without symbols. A symbol inside another one already in full is not repeated, nor a
 * signature line another item already shows (it is named in that item's `alsoCovers`). Whatever does not fit is listed in `dropped` with
 * what it needed. The estimate of every rendered block is counted, so the rendered markdown never
 * exceeds the budget.
 */
export function buildPackage(packageInput: PackageInput): ContextPackage {
  const input = { ...packageInput, files: orderByGroups(packageInput.files, packageInput.groups) };
  const margin = input.safetyMargin ?? DEFAULT_SAFETY_MARGIN;
  const est = (t: string) => estimateTokens(t, margin);
  let used = est(headerText(input.task.text));
  if (used > input.budgetTokens) throw new Error(`A budget of ${input.budgetTokens} tokens cannot hold even the package header (${used} tokens); give a larger budget.`);
  const sources = new Map<string, string[] | null>();
  const lines = (path: string) => {
    if (!sources.has(path)) sources.set(path, input.readSource(path)?.split('\n') ?? null);
    return sources.get(path) ?? null;
  };
  const placed = new Map<ContextFile, PackageItem[]>();
  // The symbol's own lines (a signature item shows only its first line, but covers the symbol).
  const span = new WeakMap<PackageItem, [number, number]>();
  const spanOf = (p: PackageItem) => span.get(p) ?? [p.startLine, p.endLine];
  const dropped: DroppedItem[] = [];
  const left = () => input.budgetTokens - used;
  const headerCost = (f: ContextFile) => (placed.has(f) ? 0 : est(fileHeaderText(f)));
  const make = (f: ContextFile, s: ContextSymbol | undefined, detail: PackageItem['detail'], text: string, start: number, end: number, extra: Reason[] = []): PackageItem => {
    const base = { ...(s ? { symbol: { qualifiedName: s.qualifiedName, kind: s.kind, role: s.role } } : {}), detail, startLine: start, endLine: end, text, reasons: [...(s ? s.reasons : f.reasons), ...extra], ...(s?.pYes !== undefined ? { pYes: s.pYes } : {}) };
    const item = { ...base, tokens: est(itemText(f.path, base)) };
    span.set(item, s ? [s.startLine, s.endLine] : [start, end]);
    return item;
  };
  const put = (f: ContextFile, item: PackageItem, replaces: PackageItem[] = []): boolean => {
    const cost = item.tokens + headerCost(f) - replaces.reduce((n, r) => n + r.tokens, 0);
    if (cost > left()) return false;
    used += cost;
    // The lines a replaced item also showed for other symbols are in the new one (a body around them).
    const carried = replaces.flatMap((r) => r.alsoCovers ?? []).filter((n) => n !== item.symbol?.qualifiedName);
    if (carried.length) item.alsoCovers = [...new Set([...(item.alsoCovers ?? []), ...carried])];
    placed.set(f, [...(placed.get(f) ?? []).filter((p) => !replaces.includes(p)), item]);
    return true;
  };
  const drop = (f: ContextFile, item: PackageItem) => {
    dropped.push({ path: f.path, ...(item.symbol ? { symbol: item.symbol.qualifiedName, role: item.symbol.role } : {}), detail: item.detail, reasons: [...item.reasons, { kind: 'over-budget', detail: { tokens: item.tokens + headerCost(f), left: left() } }] });
  };
  const inside = (f: ContextFile, s: ContextSymbol) => (placed.get(f) ?? []).some((p) => p.detail !== 'signature' && p.startLine <= s.startLine && s.endLine <= p.endLine);
  const fullOf = (f: ContextFile, s: ContextSymbol, extra: Reason[] = []) => {
    const src = lines(f.path);
    return src ? make(f, s, 'full', src.slice(s.startLine - 1, s.endLine).join('\n'), s.startLine, s.endLine, extra) : undefined;
  };
  const signatureOf = (f: ContextFile, s: ContextSymbol, extra: Reason[] = []) => make(f, s, 'signature', s.signature, s.startLine, s.startLine, extra);
  /**
   * A signature whose line an item of the file already shows (one import line is the signature of
   * every module it names) is not packed again: that item names the symbol in `alsoCovers`.
   */
  const shownBy = (f: ContextFile, s: ContextSymbol, sig: PackageItem): boolean => {
    const host = (placed.get(f) ?? []).find((p) => p.startLine <= sig.startLine && sig.endLine <= p.endLine && (p.detail !== 'signature' || p.text === sig.text));
    if (!host) return false;
    if (host.symbol?.qualifiedName !== s.qualifiedName && !host.alsoCovers?.includes(s.qualifiedName)) (host.alsoCovers ??= []).push(s.qualifiedName);
    return true;
  };
  /** Place a body; symbols of the same file it contains are replaced (their tokens refunded). */
  const putFull = (f: ContextFile, item: PackageItem, replacing: PackageItem[] = []) => {
    const within = (placed.get(f) ?? []).filter((p) => spanOf(p)[0] >= item.startLine && spanOf(p)[1] <= item.endLine);
    return put(f, item, [...new Set([...within, ...replacing])]);
  };

  const withSymbols = input.files.filter((f) => f.symbols && f.symbols.length > 0);
  // 1. Primary bodies; a body that does not fit becomes its signature.
  for (const f of withSymbols) {
    for (const s of f.symbols!.filter((x) => x.role === 'primary')) {
      if (inside(f, s)) continue;
      const full = fullOf(f, s);
      if (full && putFull(f, full)) continue;
      const sig = signatureOf(f, s, full ? [{ kind: 'demoted', detail: { fullTokens: full.tokens } }] : []);
      if (!shownBy(f, s, sig) && !put(f, sig)) drop(f, sig);
    }
  }
  // 2. Signatures of the others (supporting and type_context).
  const signatures = new Map<ContextSymbol, PackageItem>();
  for (const f of withSymbols) {
    for (const s of f.symbols!.filter((x) => x.role !== 'primary')) {
      if (inside(f, s)) continue;
      const sig = signatureOf(f, s);
      if (shownBy(f, s, sig)) continue;
      if (put(f, sig)) signatures.set(s, sig);
      else drop(f, sig);
    }
  }
  // 3. Supporting bodies where room is left; one that does not fit stays a signature, said so.
  for (const f of withSymbols) {
    for (const s of f.symbols!.filter((x) => x.role === 'supporting')) {
      const sig = signatures.get(s);
      if (!sig || !(placed.get(f) ?? []).includes(sig)) continue;
      const full = fullOf(f, s);
      // A body that would swallow a primary body stays a signature: the primary keeps its own item and reasons.
      if (full && (placed.get(f) ?? []).some((p) => p.symbol?.role === 'primary' && p.detail === 'full' && full.startLine <= p.startLine && p.endLine <= full.endLine)) continue;
      if (!full || putFull(f, full, [sig])) continue;
      const demoted = { ...sig, reasons: [...sig.reasons, { kind: 'demoted' as const, detail: { fullTokens: full.tokens } }] };
      // The copy covers the symbol as the signature did: a later body must not take it for a one-line item.
      span.set(demoted, spanOf(sig));
      placed.set(f, (placed.get(f) ?? []).map((p) => (p === sig ? demoted : p)));
    }
  }
  // 4. Whole files without symbols (docs, config), last.
  for (const f of input.files.filter((x) => !x.symbols || x.symbols.length === 0)) {
    const src = lines(f.path);
    if (!src) continue;
    const item = make(f, undefined, 'file', src.join('\n'), 1, src.length);
    if (!put(f, item)) drop(f, item);
  }

  const files: PackageFile[] = input.files
    .filter((f) => placed.has(f))
    .map((f) => ({ path: f.path, tier: f.tier, reasons: f.reasons, ...(f.pYes !== undefined ? { pYes: f.pYes } : {}), items: [...(placed.get(f) ?? [])].sort((a, b) => a.startLine - b.startLine || a.endLine - b.endLine), headerTokens: est(fileHeaderText(f)) }));
  const included = new Set(files.map((f) => f.path));
  const edges: ContextPackage['edges'] = [];
  if (input.kb) {
    for (const f of input.files.filter((x) => included.has(x.path))) {
      for (const d of input.kb.getDependencies(f.fileId, 'outgoing')) if (included.has(d.path) && d.path !== f.path) edges.push({ from: f.path, to: d.path });
    }
  }
  const groups = (input.groups ?? []).map((g) => g.filter((p) => included.has(p))).filter((g) => g.length > 1);
  return { taskId: input.task.id, task: input.task.text, budget: { tokens: input.budgetTokens, used, safetyMargin: margin }, files, edges, dropped, ...(groups.length ? { groups } : {}) };
}

/** The package as the execute prompt's context: markdown with a `path:start-end` header per item. */
export function renderMarkdown(pkg: ContextPackage): string {
  let out = headerText(pkg.task);
  for (const f of pkg.files) {
    out += fileHeaderText(f);
    for (const item of f.items) out += itemText(f.path, item);
  }
  return out;
}

/** The package as JSON (stable key order, two-space indent). */
export function renderJson(pkg: ContextPackage): string {
  return JSON.stringify(pkg, null, 2);
}
