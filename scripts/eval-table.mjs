#!/usr/bin/env node
// One markdown table from several `cra eval --json --out FILE` reports: per repository and method
// R@1, R@5, R@10, all-gold@10 and MRR, then the macro average (mean over repositories) of each
// group named with --group. Used for the development-set tables of issue #12.
//
//   node scripts/eval-table.mjs [--group large=sqlalchemy,networkx] report.json...
//
// A report's repository name is the last folder of its repoPath.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

const usage = 'usage: node scripts/eval-table.mjs [--group NAME=repo,repo]... report.json...';
const files = [];
const groups = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--group') {
    const [name, list] = (argv[++i] ?? '').split('=');
    if (!name || !list) throw new Error(`--group needs NAME=repo,repo. ${usage}`);
    groups.push({ name, repos: list.split(',') });
  } else files.push(argv[i]);
}
if (files.length === 0) {
  console.error(usage);
  process.exit(1);
}

const f3 = (n) => (n === undefined ? '-' : n.toFixed(3).replace(/^0/, ''));
const figures = (s) => [s?.recallAt['1'], s?.recallAt['5'], s?.recallAt['10'], s?.allGoldAt['10'], s?.mrr];
const reports = files.map((file) => JSON.parse(readFileSync(file, 'utf8')));
const methods = [...new Set(reports.flatMap((r) => r.methods))];

console.log('| repository | tasks | method | R@1 | R@5 | R@10 | all-gold@10 | MRR |');
console.log('|---|---|---|---|---|---|---|---|');
for (const report of reports) {
  const name = basename(report.repoPath);
  const tasks = report.tasks.filter((t) => !t.error).length;
  for (const method of report.methods) console.log(`| ${name} | ${tasks} | ${method} | ${figures(report.summary[method]).map(f3).join(' | ')} |`);
}
for (const group of groups) {
  const members = reports.filter((r) => group.repos.includes(basename(r.repoPath)));
  const missing = group.repos.filter((name) => !members.some((r) => basename(r.repoPath) === name));
  if (missing.length > 0) throw new Error(`group ${group.name}: no report for ${missing.join(', ')}`);
  for (const method of methods) {
    const rows = members.map((r) => figures(r.summary[method]));
    if (rows.some((row) => row[0] === undefined)) continue;
    const mean = rows[0].map((_, i) => rows.reduce((sum, row) => sum + row[i], 0) / rows.length);
    console.log(`| **macro ${group.name}** (${members.length}) | ${members.reduce((n, r) => n + r.tasks.length, 0)} | ${method} | ${mean.map(f3).join(' | ')} |`);
  }
}
