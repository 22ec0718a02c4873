/**
 * Tuning aid (issue #12): for one task of a `cra eval` report, print how each stage of keyword
 * search scores the gold files and the top files, over a snapshot kept by bench/rankTune.ts.
 *
 *   npx tsx bench/rankDebug.ts --report after/<repo>.json --snapshots /tmp/rank-snap/<repo> --task <id prefix>
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EvalReport } from '../src/shared/contract/eval';
import { openDatabase } from '../src/core/platform/db/open';
import { KnowledgeBase } from '../src/core/knowledge/kb/knowledgeBase';
import { parseQuery } from '../src/core/knowledge/search/query';
import { keywordFileRanking, type FileHit } from '../src/core/knowledge/search/keyword';
import { applyDefinitions, applyNeighbours, applyPrior, testPrior } from '../src/core/knowledge/search/graph';
import { applyNamedFiles } from '../src/core/knowledge/search/nameMatch';
import { kindPrior } from '../src/core/knowledge/search/fileKinds';
import { applyFileBm25, fileBm25 } from '../src/core/knowledge/search/fileBm25';
import { chunkMatch } from '../src/core/knowledge/search/termStats';

function arg(name: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return process.argv[i + 1]!;
}

const report = JSON.parse(readFileSync(arg('report'), 'utf8')) as EvalReport;
const tasks = report.tasks.filter((t) => !t.error).sort((a, b) => (a.date ?? '').localeCompare(b.date ?? ''));
const i = tasks.findIndex((t) => t.id.startsWith(arg('task')));
const task = tasks[i]!;
const db = openDatabase(join(arg('snapshots'), String(i), 'curated.sqlite'), { readOnly: true });
const kb = KnowledgeBase.of(db);
const index = kb.searchIndex;
const parsed = parseQuery(task.task);
console.log(task.id, task.task.split('\n')[0], '\nGOLD', task.gold.join(' '));
console.log('terms', parsed.terms.join(' '));
console.log('chunk match', JSON.stringify(chunkMatch(index, parsed)).slice(0, 600));
const stages: Array<[string, Map<number, number>]> = [];
const snap = (name: string, files: Map<number, FileHit>) => stages.push([name, new Map([...files.values()].map((f) => [f.fileId, f.score]))]);
const files = keywordFileRanking(index, parsed);
snap('keyword', files);
applyDefinitions(index, parsed, files);
snap('defs', files);
applyNamedFiles(index, parsed, files);
snap('named', files);
applyNeighbours(index, files, (id) => index.pathOf(id));
snap('neigh', files);
const tests = testPrior(index, parsed);
const kinds = kindPrior(index, parsed);
const prior = (id: number) => tests(id) * kinds(id);
applyPrior(files, prior);
snap('prior', files);
const fb = fileBm25(kb, parsed);
const fbBest = Math.max(...fb.values());
applyFileBm25(kb, parsed, files, prior);
snap('final', files);
const ranked = [...files.values()].sort((a, b) => b.score - a.score);
const gold = new Set(task.gold);
const fbRank = new Map([...fb.entries()].sort((a, b) => b[1] - a[1]).map(([id], r) => [id, r + 1]));
const show = (f: FileHit, r: number) => {
  const path = index.pathOf(f.fileId) ?? '?';
  console.log(`${String(r).padStart(3)} ${gold.has(path) ? '*' : ' '} ${stages.map(([n, m]) => `${n}=${(m.get(f.fileId) ?? 0).toFixed(3)}`).join(' ')} fb=${((fb.get(f.fileId) ?? 0) / fbBest).toFixed(3)}#${fbRank.get(f.fileId) ?? '-'} ${path} [${f.why.map((w) => w.kind).join(',')}]`);
};
ranked.slice(0, 15).forEach((f, r) => show(f, r + 1));
ranked.forEach((f, r) => { if (r >= 15 && gold.has(index.pathOf(f.fileId) ?? '')) show(f, r + 1); });
db.close();
