#!/usr/bin/env node
// Tables from `bench/rankTune.ts` outputs (issue #12): per repository and ranking setting, R@1,
// R@5, R@10, all-gold@10 and MRR of our search (every file), and the leave-one-repository-out
// choice: for each repository, the setting with the best mean of R@5 and R@10 over the OTHER
// repositories (macro), measured on the held-out one. Ties keep the earlier setting of the list
// (put the shipped default first).
//
//   node scripts/rank-loo.mjs [--reference base/] [--only name,name] [--objective units] tuned/*.json
//
// --objective units: choose by function-level Acc@10 (all gold units in the top 10; the `units`
// ranks rankTune records for tasks with gold functions) instead of file-level R@5/R@10 (issue #27).
//
// --reference: a folder of the `cra eval` reports the tasks came from; their bm25-source figures
// are printed beside ours.
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';

const argv = process.argv.slice(2);
let referenceDir;
let only;
let byUnits = false;
const files = [];
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--reference') referenceDir = argv[++i];
  else if (argv[i] === '--only') only = new Set(argv[++i].split(','));
  else if (argv[i] === '--objective') byUnits = argv[++i] === 'units';
  else files.push(argv[i]);
}
if (files.length === 0) {
  console.error('usage: node scripts/rank-loo.mjs [--reference DIR] [--only names] tuned/*.json');
  process.exit(1);
}

const f3 = (n) => n.toFixed(3).replace(/^0/, '');
/** Figures of one task from its gold ranks. */
function taskFigures(ranks) {
  const values = Object.values(ranks);
  const within = (k) => values.filter((r) => r !== null && r <= k).length / values.length;
  const first = Math.min(...values.map((r) => (r === null ? Infinity : r)));
  return [within(1), within(5), within(10), values.every((r) => r !== null && r <= 10) ? 1 : 0, first === Infinity ? 0 : 1 / first];
}
const meanOf = (rows) => rows[0].map((_, i) => rows.reduce((s, r) => s + r[i], 0) / rows.length);

const repos = files.map((file) => {
  const data = JSON.parse(readFileSync(file, 'utf8'));
  const name = basename(data.repo);
  const figures = {};
  for (const [config, tasks] of Object.entries(data.results)) {
    if (only && !only.has(config)) continue;
    const withUnits = tasks.filter((t) => t.units && Object.keys(t.units).length > 0);
    const units = withUnits.length > 0 ? meanOf(withUnits.map((t) => taskFigures(t.units))) : [0, 0, 0, 0, 0];
    figures[config] = { all: meanOf(tasks.map((t) => taskFigures(t.all))), source: meanOf(tasks.map((t) => taskFigures(t.source))), units, p95: p95(tasks.map((t) => t.ms)) };
  }
  const reference = referenceDir ? JSON.parse(readFileSync(join(referenceDir, `${name}.json`), 'utf8')).summary['bm25-source'] : undefined;
  return { name, configs: data.configs.map((c) => c.name).filter((c) => figures[c]), figures, reference };
});
function p95(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))];
}

const configs = repos[0].configs.filter((c) => repos.every((r) => r.figures[c]));
const objective = byUnits ? (fig) => fig.units[3] : (fig) => (fig.all[1] + fig.all[2]) / 2;

console.log('| setting | ' + repos.map((r) => r.name).join(' | ') + ' | macro |');
console.log('|---|' + repos.map(() => '---|').join('') + '---|');
for (const c of configs) {
  const values = repos.map((r) => objective(r.figures[c]));
  console.log(`| ${c} | ${values.map(f3).join(' | ')} | ${f3(values.reduce((a, b) => a + b, 0) / values.length)} |`);
}
console.log(byUnits ? '\n(function-level Acc@10 of `search-functions`)\n' : '\n(mean of R@5 and R@10 of `search` over every file)\n');

console.log('| held out | chosen on the other repositories | R@1 | R@5 | R@10 | all-gold@10 | MRR | default R@5 | default R@10 | bm25-source R@5 | bm25-source R@10 | functions Acc@10 | default functions Acc@10 |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const held of repos) {
  const others = repos.filter((r) => r !== held);
  let best = configs[0];
  let bestScore = -1;
  for (const c of configs) {
    const score = others.reduce((s, r) => s + objective(r.figures[c]), 0) / others.length;
    if (score > bestScore + 1e-9) {
      best = c;
      bestScore = score;
    }
  }
  const fig = held.figures[best].all;
  const base = held.figures[configs[0]].all;
  const ref = held.reference ? [held.reference.recallAt['5'], held.reference.recallAt['10']].map(f3) : ['-', '-'];
  console.log(`| ${held.name} | ${best} | ${fig.map(f3).join(' | ')} | ${f3(base[1])} | ${f3(base[2])} | ${ref.join(' | ')} | ${f3(held.figures[best].units[3])} | ${f3(held.figures[configs[0]].units[3])} |`);
}

{
  console.log('\n| repository | setting | R@1 | R@5 | R@10 | all-gold@10 | MRR | source R@5 | source R@10 | functions R@10 | functions Acc@10 | p95 ms |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of repos) for (const c of configs) {
    const f = r.figures[c];
    console.log(`| ${r.name} | ${c} | ${f.all.map(f3).join(' | ')} | ${f3(f.source[1])} | ${f3(f.source[2])} | ${f3(f.units[2])} | ${f3(f.units[3])} | ${f.p95} |`);
  }
}
