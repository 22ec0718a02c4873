#!/usr/bin/env node
// One markdown table from several `cra eval --json --out FILE` reports: per repository and method
// R@1, R@5, R@10, all-gold@10 and MRR, then the macro average (mean over repositories) of each
// group named with --group. Used for the development-set tables of issue #12.
// --acc prints file-level Acc@1, Acc@5, Acc@10 (all-gold@k) and function-level Acc@10 instead (the
// all-gold@10 of the method's "-functions" twin, e.g. search-functions for search; "-" when the
// report has none), the figures of the issue-style development set (issue #27). --methods keeps
// only the named methods, in that order.
//
//   node scripts/eval-table.mjs [--acc] [--methods search,bm25-standard] [--group large=sqlalchemy,networkx] report.json...
//
// A report's repository name is the last folder of its repoPath.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

const usage = 'usage: node scripts/eval-table.mjs [--acc] [--methods m,m] [--group NAME=repo,repo]... report.json...';
const files = [];
const groups = [];
let acc = false;
let only;
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--group') {
    const [name, list] = (argv[++i] ?? '').split('=');
    if (!name || !list) throw new Error(`--group needs NAME=repo,repo. ${usage}`);
    groups.push({ name, repos: list.split(',') });
  } else if (argv[i] === '--acc') acc = true;
  else if (argv[i] === '--methods') {
    only = (argv[++i] ?? '').split(',').filter(Boolean);
    if (only.length === 0) throw new Error(`--methods needs m,m. ${usage}`);
  } else files.push(argv[i]);
}
if (files.length === 0) {
  console.error(usage);
  process.exit(1);
}

const f3 = (n) => (n === undefined ? '-' : n.toFixed(3).replace(/^0/, ''));
const figures = acc
  ? (summary, method) => {
      const s = summary[method];
      return [s?.allGoldAt['1'], s?.allGoldAt['5'], s?.allGoldAt['10'], summary[`${method}-functions`]?.allGoldAt['10']];
    }
  : (summary, method) => {
      const s = summary[method];
      return [s?.recallAt['1'], s?.recallAt['5'], s?.recallAt['10'], s?.allGoldAt['10'], s?.mrr];
    };
const reports = files.map((file) => JSON.parse(readFileSync(file, 'utf8')));
const pick = (methods) => (only ? only.filter((m) => methods.includes(m)) : methods);
const methods = pick([...new Set(reports.flatMap((r) => r.methods))]);

const columns = acc ? ['Acc@1', 'Acc@5', 'Acc@10', 'function Acc@10'] : ['R@1', 'R@5', 'R@10', 'all-gold@10', 'MRR'];
console.log(`| repository | tasks | method | ${columns.join(' | ')} |`);
console.log(`|${'---|'.repeat(3 + columns.length)}`);
for (const report of reports) {
  const name = basename(report.repoPath);
  const tasks = report.tasks.filter((t) => !t.error).length;
  for (const method of pick(report.methods)) console.log(`| ${name} | ${tasks} | ${method} | ${figures(report.summary, method).map(f3).join(' | ')} |`);
}
for (const group of groups) {
  const members = reports.filter((r) => group.repos.includes(basename(r.repoPath)));
  const missing = group.repos.filter((name) => !members.some((r) => basename(r.repoPath) === name));
  if (missing.length > 0) throw new Error(`group ${group.name}: no report for ${missing.join(', ')}`);
  for (const method of methods) {
    const rows = members.map((r) => figures(r.summary, method));
    if (rows.some((row) => row[0] === undefined)) continue;
    // A figure some member lacks (function Acc@10 without a "-functions" method) stays "-".
    const mean = rows[0].map((_, i) => (rows.some((row) => row[i] === undefined) ? undefined : rows.reduce((sum, row) => sum + row[i], 0) / rows.length));
    console.log(`| **macro ${group.name}** (${members.length}) | ${members.reduce((n, r) => n + r.tasks.filter((t) => !t.error).length, 0)} | ${method} | ${mean.map(f3).join(' | ')} |`);
  }
}
