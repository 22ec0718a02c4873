#!/usr/bin/env node
// Leave-one-repository-out choice on the issue-style set with the commit-message guard (issue #27,
// items 3 and 7). Inputs are `bench/rankTune.ts` outputs under the same settings list: one folder
// replayed with `--tasks` (issue tasks) and one replayed with `--report` (commit-message tasks).
// For each held-out repository, among the settings whose commit-message R@5 and R@10 are no worse
// than the first setting's (the shipped one) on every OTHER repository, the one with the best
// macro issue Acc@5 + Acc@1 over the other repositories is chosen (ties keep the earlier setting)
// and scored on the held-out one. Acc@k: every gold file within k; R@k: the share of gold files.
//
//   node scripts/issue-loo.mjs shipped,other,... ituned/ ctuned/ [more issue outputs .json]
import { readFileSync, readdirSync } from 'node:fs';
const [settingsArg, idir, cdir, ...extra] = process.argv.slice(2);
const settings = settingsArg.split(',');
const f3 = (n) => (n === undefined ? '-' : n.toFixed(3).replace(/^0/, ''));
const acc = (ranks, k) => (Object.values(ranks).every((r) => r !== null && r <= k) ? 1 : 0);
const rec = (ranks, k) => Object.values(ranks).filter((r) => r !== null && r <= k).length / Object.values(ranks).length;
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const load = (f) => JSON.parse(readFileSync(f, 'utf8'));
const issue = {}, commit = {};
for (const f of [...readdirSync(idir).filter((x) => x.endsWith('.json')).map((x) => `${idir}/${x}`), ...extra]) {
  const d = load(f); const repo = d.repo.split('/').pop();
  issue[repo] = Object.fromEntries(settings.map((s) => [s, [1, 5, 10].map((k) => mean(d.results[s].map((t) => acc(t.all, k))))]));
  issue[repo].n = d.results[settings[0]].length;
}
for (const f of readdirSync(cdir).filter((x) => x.endsWith('.json'))) {
  const d = load(`${cdir}/${f}`); const repo = d.repo.split('/').pop();
  commit[repo] = Object.fromEntries(settings.map((s) => [s, [5, 10].map((k) => mean(d.results[s].map((t) => rec(t.all, k))))]));
}
const repos = Object.keys(issue).sort();
const base = settings[0];
const eps = 1e-9;
const guardOk = (s, rs) => rs.every((r) => !commit[r] || (commit[r][s][0] >= commit[r][base][0] - eps && commit[r][s][1] >= commit[r][base][1] - eps));
const objective = (s, rs) => mean(rs.map((r) => issue[r][s][1])) + mean(rs.map((r) => issue[r][s][0]));
console.log('| setting | issue macro Acc@1 / @5 / @10 | commit guard (no repo worse at R@5/R@10) | ' + Object.keys(commit).sort().map((r) => `${r} R@5/R@10`).join(' | ') + ' |');
console.log('|---|---|---|' + Object.keys(commit).map(() => '---|').join(''));
for (const s of settings) {
  const m = [0, 1, 2].map((i) => mean(repos.map((r) => issue[r][s][i])));
  console.log(`| ${s} | ${m.map(f3).join(' / ')} | ${guardOk(s, Object.keys(commit)) ? 'passes' : 'fails'} | ${Object.keys(commit).sort().map((r) => commit[r][s].map(f3).join(' / ')).join(' | ')} |`);
}
console.log('\n| held out | chosen on the others | issue Acc@1 / @5 / @10 held out | (raise) | commit R@5 / R@10 held out | (raise) |');
console.log('|---|---|---|---|---|---|');
for (const held of repos) {
  const others = repos.filter((r) => r !== held);
  const cOthers = Object.keys(commit).filter((r) => r !== held);
  let best = base;
  for (const s of settings) if (guardOk(s, cOthers) && objective(s, others) > objective(best, others) + eps) best = s;
  const c = commit[held];
  console.log(`| ${held} | ${best} | ${issue[held][best].map(f3).join(' / ')} | ${issue[held][base].map(f3).join(' / ')} | ${c ? c[best].map(f3).join(' / ') : '-'} | ${c ? c[base].map(f3).join(' / ') : '-'} |`);
}
console.log('\nper repository (issue Acc@1/5/10):');
for (const r of repos) console.log(`| ${r} | ${issue[r].n} | ` + settings.map((s) => issue[r][s].map(f3).join('/')).join(' | ') + ' |');
