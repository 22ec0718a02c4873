import type { StatementCache } from './statements';
import type { RepoOverview } from './types';

/** Indexed files (not the skipped ones) per language, most first. */
export function readLanguageCounts(sql: StatementCache): Record<string, number> {
  const rows = sql.rowsOf('select language as k, count(*) as n from files where skip_reason is null group by language order by n desc').all() as Array<{ k: string; n: number }>;
  return Object.fromEntries(rows.map((r) => [r.k, r.n]));
}

/** Counts, languages, enrichment domains and the most connected files (KnowledgeBase.getRepoOverview). */
export function readRepoOverview(sql: StatementCache): RepoOverview {
  const count = (text: string) => Number(sql.valuesOf(text).get() ?? 0);
  const group = (text: string) => Object.fromEntries((sql.rowsOf(text).all() as Array<{ k: string; n: number }>).map((r) => [r.k, r.n]));
  const mostConnected = sql
    .rowsOf(
      `select f.id as fileId, f.path,
         (select count(*) from file_dependencies d where d.from_file_id = f.id) as imports,
         (select count(*) from file_dependencies d where d.to_file_id = f.id) as importedBy
       from files f where f.skip_reason is null order by imports + importedBy desc, f.path limit 10`,
    )
    .all() as RepoOverview['mostConnected'];
  return {
    files: count('select count(*) from files where skip_reason is null'),
    skippedFiles: count('select count(*) from files where skip_reason is not null'),
    testFiles: count('select count(*) from files where is_test = 1 and skip_reason is null'),
    symbols: count('select count(*) from symbols'),
    references: count('select count(*) from symbol_references'),
    resolvedReferences: count('select count(*) from symbol_references where target_symbol_id is not null'),
    dependencies: count('select count(*) from file_dependencies'),
    commits: count('select count(*) from commits'),
    languages: readLanguageCounts(sql),
    domains: group('select domain as k, count(*) as n from file_metadata where domain is not null group by domain order by n desc'),
    mostConnected: mostConnected.filter((m) => m.imports + m.importedBy > 0),
    lastCommitDate: (sql.valuesOf('select max(date) from commits').get() as string | null) ?? null,
  };
}
