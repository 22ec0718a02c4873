#!/usr/bin/env node
// One-off codemod run after scripts/regroup-core.mjs (issue #23, item 4): gives each feature in
// src/core/features an entry module (index.ts) exporting what the other folders of src/core import
// from it, and points those imports at the entry (one import per entry and file). Re-runnable: an
// import that already goes through the entry is left alone and its names are kept in the entry.
//   node scripts/feature-entries.mjs && npx eslint --fix src/core
import { createRequire } from 'node:module';
import { readFileSync, readdirSync, existsSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';

const ts = createRequire(join(process.cwd(), 'package.json'))('typescript');
const root = resolve('.'); const core = join(root, 'src/core'); const fdir = join(core, 'features');
function walk(d) { return readdirSync(d, { withFileTypes: true }).flatMap((e) => e.isDirectory() ? walk(join(d, e.name)) : /\.(ts|tsx)$/.test(e.name) ? [join(d, e.name)] : []); }
function res(from, spec) { const b = resolve(dirname(from), spec); for (const c of [b + '.ts', join(b, 'index.ts'), b]) if (existsSync(c) && statSync(c).isFile()) return c; return null; }
const feats = readdirSync(fdir);
const featOf = (f) => { const r = relative(fdir, f).split('/'); return r[0] !== '..' && feats.includes(r[0]) && r.length > 1 ? r[0] : null; };
const declares = (file, name) => new RegExp(`export\\s+(declare\\s+)?(async\\s+)?(const|let|function\\*?|class|interface|type|enum|abstract class)\\s+${name}\\b`).test(readFileSync(file, 'utf8'));
const exportsOf = {}; const edits = [];
const DOCS = {
  chat: "The chat feature (a conversation's turns: routing, evidence, the answer) as the rest of src/core sees it.",
  retrieval: "The retrieval feature (the Context inspector's pipeline: scope, precision and refine stages, judges, the context package) as the rest of src/core sees it.",
  plans: 'The plans feature (Plans & Runs: a plan, its solve runs, their edits and the validation sandbox) as the rest of src/core sees it.',
  review: "The review feature (a run's diff as hunks, applied to the user's tree byte for byte, journalled, undoable) as the rest of src/core sees it.",
};
// Names an entry already exports stay (their importers go through it already).
for (const ft of feats) {
  const entry = join(fdir, ft, 'index.ts');
  if (!existsSync(entry)) continue;
  const sf = ts.createSourceFile(entry, readFileSync(entry, 'utf8'), ts.ScriptTarget.Latest, true);
  for (const n of sf.statements) if (ts.isExportDeclaration(n) && n.exportClause && ts.isNamedExports(n.exportClause)) for (const el of n.exportClause.elements) (exportsOf[ft] ??= new Map()).set(el.name.text, { file: resolve(dirname(entry), n.moduleSpecifier.text) + '.ts', isType: el.isTypeOnly });
}
for (const f of walk(core)) {
  if (/\.test\.tsx?$/.test(f) || f.startsWith(join(core, 'testing'))) continue;
  const text = readFileSync(f, 'utf8'); const sf = ts.createSourceFile(f, text, ts.ScriptTarget.Latest, true);
  sf.forEachChild((n) => {
    if (!ts.isImportDeclaration(n)) return;
    const spec = n.moduleSpecifier.text; if (!spec.startsWith('.')) return;
    const t = res(f, spec); if (!t) return; const ft = featOf(t); if (!ft || featOf(f) === ft || t === join(fdir, ft, 'index.ts')) return;
    const bind = n.importClause; if (!bind?.namedBindings || !ts.isNamedImports(bind.namedBindings) || bind.name) throw new Error('unsupported import in ' + f);
    for (const e of bind.namedBindings.elements) {
      const name = (e.propertyName ?? e.name).text; const isType = e.isTypeOnly || bind.isTypeOnly;
      const m = (exportsOf[ft] ??= new Map()); const prev = m.get(name);
      if (!prev || (!declares(prev.file, name) && declares(t, name))) m.set(name, { file: t, isType: (prev?.isType ?? true) && isType });
      else prev.isType = prev.isType && isType;
    }
    let next = relative(dirname(f), join(fdir, ft)); if (!next.startsWith('.')) next = './' + next;
    edits.push({ f, start: n.moduleSpecifier.getStart(sf), end: n.moduleSpecifier.getEnd(), text: `'${next}'` });
  });
}
const byFile = {}; for (const e of edits) (byFile[e.f] ??= []).push(e);
for (const [f, es] of Object.entries(byFile)) { let s = readFileSync(f, 'utf8'); for (const e of es.sort((a, b) => b.start - a.start)) s = s.slice(0, e.start) + e.text + s.slice(e.end); writeFileSync(f, s); }
for (const [ft, m] of Object.entries(exportsOf)) {
  const groups = {}; for (const [name, { file, isType }] of m) (groups[file] ??= []).push(isType ? `type ${name}` : name);
  const lines = Object.keys(groups).sort().map((file) => { const spec = './' + relative(join(fdir, ft), file).replace(/\.ts$/, ''); const names = groups[file].sort((a, b) => a.replace(/^type /, '').localeCompare(b.replace(/^type /, ''))); return `export { ${names.join(', ')} } from '${spec}';`; });
  const doc = DOCS[ft] ?? `The ${ft} feature as the rest of src/core sees it.`;
  writeFileSync(join(fdir, ft, 'index.ts'), `/**\n * ${doc}\n * Other folders import this entry, never a file inside the feature (src/core/levels.test.ts); add\n * an export here when another folder needs one.\n */\n${lines.join('\n')}\n`);
  console.log(ft, m.size, 'names from', Object.keys(groups).length, 'files');
}
/** One import declaration per entry and file: merge those the rerouting made. */
function mergeImports(f) {
  let text = readFileSync(f, 'utf8'); const sf = ts.createSourceFile(f, text, ts.ScriptTarget.Latest, true);
  const groups = new Map();
  for (const n of sf.statements) if (ts.isImportDeclaration(n) && /features\/[a-z]+$/.test(n.moduleSpecifier.text) && n.importClause?.namedBindings && ts.isNamedImports(n.importClause.namedBindings) && !n.importClause.name) {
    const k = n.moduleSpecifier.text; (groups.get(k) ?? groups.set(k, []).get(k)).push(n); }
  const edits = [];
  for (const [k, ns] of groups) { if (ns.length < 2) continue;
    const names = ns.flatMap((n) => n.importClause.namedBindings.elements.map((e) => (n.importClause.isTypeOnly && !e.isTypeOnly ? 'type ' : '') + e.getText(sf)));
    const allType = ns.every((n) => n.importClause.isTypeOnly);
    const line = allType ? `import type { ${names.map((x) => x.replace(/^type /, '')).join(', ')} } from '${k}';` : `import { ${names.join(', ')} } from '${k}';`;
    edits.push([ns[0].getStart(sf), ns[0].getEnd(), line]);
    for (const n of ns.slice(1)) edits.push([n.getFullStart(), n.getEnd(), '']);
  }
  for (const [s, e, t] of edits.sort((a, b) => b[0] - a[0])) text = text.slice(0, s) + t + text.slice(e);
  writeFileSync(f, text);
}
for (const f of Object.keys(byFile)) mergeImports(f);
console.log(edits.length, 'imports rerouted in', Object.keys(byFile).length, 'files');
