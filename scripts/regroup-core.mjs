#!/usr/bin/env node
// Regroups src/core into levels (issue #23, items 4 and 5): one mechanical commit, made by this script
// rather than by hand so it can be run on whatever main is when the lead runs it.
//
//   node scripts/regroup-core.mjs            # in a clean checkout, at the repository root
//   git commit -m "Regroup src/core into levels (mechanical: scripts/regroup-core.mjs)"
//
// What it does, in order:
// 1. refuses unless the work tree is clean, every source in MAPPING exists, no target does, and
//    every entry of src/core is either in MAPPING or a level/test-support folder (a folder added
//    since the table was written must be placed by hand in the table first);
// 2. computes every edit against the old layout: relative module specifiers (import, export,
//    import(), import types, require, require.resolve, vi.mock and friends), paths built from
//    __dirname / import.meta (join/resolve(__dirname, 'a', 'b'), new URL('x', import.meta.url)),
//    argument lists naming 'src', 'core', <folder> from the repository root, `src/core/...` in any
//    text (configs, scripts, comments, docs) and `core/...` string literals (src-relative paths in
//    architecture tests), and the core-relative lists of src/hosts/hostImports.test.ts;
// 3. `git mv`s each folder or file (files other engineers add inside a folder move with it), writes
//    the edited files at their new places and stages everything.
// Plain Node and the typescript package the project already has; nothing else.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join, relative, resolve, sep } from 'node:path';

/**
 * Old place → new place, relative to the repository root. A folder entry moves the whole folder;
 * a file entry moves one file. Levels, lowest first: platform → knowledge → features → lab → app.
 */
export const MAPPING = [
  // platform: storage, git, files, configuration, runs and events, models, logs, the data folder's layout
  ['src/core/db', 'src/core/platform/db'],
  ['src/core/git', 'src/core/platform/git'],
  ['src/core/fs', 'src/core/platform/fs'],
  ['src/core/config', 'src/core/platform/config'],
  ['src/core/runtime', 'src/core/platform/runtime'],
  ['src/core/llm', 'src/core/platform/llm'],
  ['src/core/logs', 'src/core/platform/logs'],
  ['src/core/paths.ts', 'src/core/platform/paths.ts'],
  ['src/core/ports.ts', 'src/core/platform/ports.ts'],
  ['src/core/layout.ts', 'src/core/platform/layout.ts'],
  ['src/core/layout.test.ts', 'src/core/platform/layout.test.ts'],
  // knowledge: what the engine knows about a repository (index, search, summaries)
  ['src/core/indexer', 'src/core/knowledge/indexer'],
  ['src/core/kb', 'src/core/knowledge/kb'],
  ['src/core/search', 'src/core/knowledge/search'],
  ['src/core/summaries', 'src/core/knowledge/summaries'],
  ['src/core/enrich', 'src/core/knowledge/enrich'],
  ['src/core/repos', 'src/core/knowledge/repos'],
  // features: what the user asks for (one folder per feature, one word per idea)
  ['src/core/chat', 'src/core/features/chat'],
  ['src/core/retrieval', 'src/core/features/retrieval'],
  ['src/core/orchestrator', 'src/core/features/plans'],
  ['src/core/edits', 'src/core/features/plans/edits'],
  ['src/core/review', 'src/core/features/review'],
  // lab: measuring and training the models
  ['src/core/eval', 'src/core/lab/eval'],
  ['src/core/export', 'src/core/lab/training'],
  // app: composition (createCore), the shared context, the contract's handlers and dispatch
  ['src/core/contract', 'src/core/app/contract'],
  ['src/core/domains', 'src/core/app/domains'],
  ['src/core/createCore.ts', 'src/core/app/createCore.ts'],
  ['src/core/engine.ts', 'src/core/app/engine.ts'],
  ['src/core/hostPolicy.test.ts', 'src/core/app/hostPolicy.test.ts'],
];

/** Entries of src/core that stay where they are (the levels themselves and test support). */
const STAYING = new Set(['platform', 'knowledge', 'features', 'lab', 'app', 'testing']);
/** Where specifiers and paths are rewritten (tracked files only). */
const ROOTS = ['src', 'e2e', 'bench', 'scripts', 'bin', 'docs', '.ci'];
const ROOT_FILES = ['electron.vite.config.ts', 'vitest.config.ts', 'playwright.config.ts', 'eslint.config.mjs', 'package.json', 'tsconfig.json', 'tsconfig.base.json', 'tsconfig.node.json', 'tsconfig.web.json', 'tsconfig.e2e.json', 'README.md'];
const CODE = new Set(['.ts', '.tsx', '.mts', '.cts', '.js', '.mjs', '.cjs']);
const TEXT = new Set([...CODE, '.json', '.md', '.toml', '.yml', '.yaml', '']);
const SELF = 'scripts/regroup-core.mjs';

const root = process.cwd();
const require = createRequire(join(root, 'package.json'));

function fail(message) {
  process.stderr.write(`regroup-core: ${message}\n`);
  process.exit(1);
}

const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
const posix = (path) => path.split(sep).join('/');
const stripExt = (path) => path.replace(/\.(tsx?|mts|cts|jsx?|mjs|cjs)$/, '');

/**
 * The new place of a repository-relative path (posix), or the same path when it does not move.
 * `path` may lack its extension (a module specifier): a file entry matches it with or without one.
 */
export function mapPath(path) {
  let best;
  for (const [from, to] of MAPPING) {
    const isFile = /\.[a-z]+$/.test(from);
    if (isFile) {
      if (path === from || path === stripExt(from)) return path === from ? to : stripExt(to);
      continue;
    }
    if ((path === from || path.startsWith(`${from}/`)) && (!best || from.length > best[0].length)) best = [from, to];
  }
  return best ? best[1] + path.slice(best[0].length) : path;
}

// ── 1. preconditions ─────────────────────────────────────────────────────────────────────────────
function checkPreconditions() {
  if (!existsSync(join(root, 'package.json')) || JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).name !== 'clean-room') fail('run me at the root of the clean-room repository.');
  const moved = MAPPING.filter(([, to]) => existsSync(join(root, to)));
  if (moved.length > 0) fail(`already regrouped (${moved.length} of ${MAPPING.length} targets exist, e.g. ${moved[0][1]}); nothing to do. To run again, start from a commit before the regroup.`);
  const dirty = git('status', '--porcelain', '--untracked-files=normal').trim().split('\n').filter(Boolean);
  if (dirty.length > 0) fail(`the work tree is not clean (${dirty.length} entries); commit or remove them first, the move must be one mechanical commit:\n${dirty.slice(0, 10).join('\n')}${dirty.length > 10 ? '\n…' : ''}`);
  const missing = MAPPING.filter(([from]) => !existsSync(join(root, from)));
  if (missing.length > 0) fail(`${missing.map(([from]) => from).join(', ')} no longer exist${missing.length > 1 ? '' : 's'}: update MAPPING in ${SELF} (renamed or removed since the table was written).`);
  const sources = new Set(MAPPING.map(([from]) => from.slice('src/core/'.length)));
  const unplaced = readdirSync(join(root, 'src/core')).filter((name) => !sources.has(name) && !STAYING.has(name));
  if (unplaced.length > 0) fail(`src/core/${unplaced.join(', src/core/')} ${unplaced.length > 1 ? 'are' : 'is'} not in MAPPING: add a line for each to ${SELF} (which level does it belong to?).`);
  for (const [from, to] of MAPPING) if (MAPPING.some(([other]) => other !== from && (to === other || to.startsWith(`${other}/`)))) fail(`MAPPING: ${to} lies inside ${from}'s source folder; the table would move things twice.`);
}

// ── 2. edits ─────────────────────────────────────────────────────────────────────────────────────
/** Tracked files to look at, repository-relative. */
function candidates() {
  const files = git('ls-files', '-z', '--', ...ROOTS, ...ROOT_FILES).split('\0').filter(Boolean);
  return files.filter((file) => file !== SELF && TEXT.has(extname(file)) && !file.endsWith('CHANGELOG.md'));
}

/** The specifier `file` needs, once both it and its target are at their new places (unchanged when neither moves). */
function respecify(file, specifier) {
  const oldTarget = posix(relative(root, resolve(root, dirname(file), specifier)));
  const newFile = mapPath(file);
  const before = posix(relative(dirname(file), oldTarget));
  const now = posix(relative(dirname(newFile), mapPath(oldTarget)));
  if (now === before) return specifier;
  let next = now === '' ? '.' : now.startsWith('.') ? now : `./${now}`;
  if (specifier.endsWith('/') && !next.endsWith('/')) next += '/';
  return next;
}

/** The new segment list of a path built from a folder (`baseOld` → `baseNew`), or null when unchanged. */
function resegment(baseOld, baseNew, segments) {
  const oldTarget = posix(relative(root, resolve(root, baseOld, ...segments)));
  const newTarget = mapPath(oldTarget);
  const now = posix(relative(baseNew, newTarget)) || '.';
  const before = posix(relative(baseOld, oldTarget)) || '.';
  return now === before ? null : now;
}

const quote = (text, like) => {
  const q = like.trim()[0];
  return q === '"' ? JSON.stringify(text) : `${q}${text.replace(/\\/g, '\\\\').replace(new RegExp(q, 'g'), `\\${q}`)}${q}`;
};

const MOCKS = new Set(['mock', 'doMock', 'unmock', 'doUnmock', 'importActual', 'importMock']);

/** Edits ([start, end, text]) of one code file's module specifiers and built paths. */
function codeEdits(ts, file, text) {
  const kind = { '.tsx': ts.ScriptKind.TSX, '.js': ts.ScriptKind.JS, '.mjs': ts.ScriptKind.JS, '.cjs': ts.ScriptKind.JS }[extname(file)] ?? ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const edits = [];
  const literal = (node) => node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node));
  const specifier = (node) => {
    if (!literal(node) || !node.text.startsWith('.')) return;
    const next = respecify(file, node.text);
    if (next !== node.text) edits.push([node.getStart(source), node.getEnd(), quote(next, node.getText(source))]);
  };
  /** join/resolve(base, 'a', 'b', name…): the string literals after the base (a variable tail stays below them). */
  const builtPath = (call, baseOld, baseNew) => {
    const rest = call.arguments.slice(1);
    const count = rest.findIndex((a) => !literal(a));
    const args = count === -1 ? rest : rest.slice(0, count);
    if (args.length === 0) return;
    const next = resegment(baseOld, baseNew, args.map((a) => a.text));
    if (next === null) return;
    const parts = args.length === 1 ? [next] : next.split('/');
    edits.push([args[0].getStart(source), args.at(-1).getEnd(), parts.map((p) => quote(p, args[0].getText(source))).join(', ')]);
  };
  const isDirname = (node) => (ts.isIdentifier(node) && node.text === '__dirname') || (ts.isPropertyAccessExpression(node) && node.getText(source) === 'import.meta.dirname');
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) specifier(node.moduleSpecifier);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) specifier(node.moduleReference.expression);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) specifier(node.argument.literal);
    else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const name = callee.getText(source);
      if (callee.kind === ts.SyntaxKind.ImportKeyword || name === 'require' || name === 'require.resolve' || (ts.isPropertyAccessExpression(callee) && callee.expression.getText(source) === 'vi' && MOCKS.has(callee.name.text))) specifier(node.arguments[0]);
      else if (/(^|\.)(join|resolve)$/.test(name) && node.arguments.length > 1) {
        const first = node.arguments[0];
        if (isDirname(first)) builtPath(node, dirname(file), dirname(mapPath(file)));
        else {
          // join(root, 'src', 'core', 'indexer', …) from the repository root, join('core', 'eval') from src/:
          // the run of string literals from 'src'/'core' on names a path whatever the base is.
          const args = node.arguments;
          const at = args.findIndex((a, i) => literal(a) && a.text === 'core' && literal(args[i + 1]));
          if (at >= 0) {
            const from = at > 0 && literal(args[at - 1]) && args[at - 1].text === 'src' ? at - 1 : at;
            let to = at + 1;
            while (to + 1 < args.length && literal(args[to + 1])) to++;
            const old = args.slice(from, to + 1).map((a) => a.text).join('/');
            const next = from === at ? mapPath(`src/${old}`).slice('src/'.length) : mapPath(old);
            if (next !== old) edits.push([args[from].getStart(source), args[to].getEnd(), next.split('/').map((p) => quote(p, args[from].getText(source))).join(', ')]);
          }
        }
      }
    } else if (ts.isNewExpression(node) && node.expression.getText(source) === 'URL' && node.arguments?.length === 2 && node.arguments[1].getText(source) === 'import.meta.url' && literal(node.arguments[0]) && node.arguments[0].text.startsWith('.')) {
      const arg = node.arguments[0];
      const next = resegment(dirname(file), dirname(mapPath(file)), [arg.text]);
      if (next !== null) edits.push([arg.getStart(source), arg.getEnd(), quote(next.startsWith('.') ? next : `./${next}`, arg.getText(source))]);
    } else if (literal(node) && /^core\/[^/]/.test(node.text) && !ts.isImportDeclaration(node.parent) && !ts.isExportDeclaration(node.parent)) {
      // 'core/search', 'core/kb/schema.ts': paths relative to src/ in architecture tests.
      const next = mapPath(`src/${node.text}`).slice('src/'.length);
      if (next !== node.text) edits.push([node.getStart(source), node.getEnd(), quote(next, node.getText(source))]);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return edits;
}

/** `src/core/<old>` anywhere in a text (configs, comments, docs): the new path. */
function textPaths(text) {
  return text.replace(/src\/core\/([A-Za-z0-9_.-]+(?:\/[A-Za-z0-9_.-]+)*)/g, (whole) => {
    // A trailing dot ends a sentence, not a path.
    const tail = whole.match(/\.+$/)?.[0] ?? '';
    const path = tail ? whole.slice(0, -tail.length) : whole;
    return mapPath(path) + tail;
  });
}

/** src/hosts/hostImports.test.ts lists core-relative modules ('-> eval/format') and allow-patterns (/^createCore$/). */
function hostImportLists(text) {
  const core = (path) => mapPath(`src/core/${path}`).slice('src/core/'.length);
  return text
    .replace(/(-> )([A-Za-z0-9_/.-]+)(')/g, (_, arrow, path, end) => `${arrow}${core(path)}${end}`)
    .replace(/\/\^([A-Za-z0-9_]+)(\\\/|\$|\()/g, (whole, head, after) => {
      const next = core(head);
      return next === head ? whole : `/^${next.replace(/\//g, '\\/')}${after}`;
    });
}

function applyEdits(text, edits) {
  const sorted = [...edits].sort((a, b) => b[0] - a[0]);
  for (let i = 1; i < sorted.length; i++) if (sorted[i][1] > sorted[i - 1][0]) fail(`overlapping edits at ${sorted[i][0]}; report this.`);
  let out = text;
  for (const [start, end, replacement] of sorted) out = out.slice(0, start) + replacement + out.slice(end);
  return out;
}

// ── 3. move and write ────────────────────────────────────────────────────────────────────────────
function main() {
  checkPreconditions();
  const ts = require('typescript');
  const rewritten = new Map();
  for (const file of candidates()) {
    const text = readFileSync(join(root, file), 'utf8');
    let next = CODE.has(extname(file)) ? applyEdits(text, codeEdits(ts, file, text)) : text;
    next = textPaths(next);
    if (file === 'src/hosts/hostImports.test.ts') next = hostImportLists(next);
    if (next !== text || mapPath(file) !== file) rewritten.set(file, next);
  }
  for (const [from, to] of MAPPING) {
    mkdirSync(dirname(join(root, to)), { recursive: true });
    git('mv', from, to);
  }
  let changed = 0;
  for (const [file, text] of rewritten) {
    const target = join(root, mapPath(file));
    if (readFileSync(target, 'utf8') !== text) {
      writeFileSync(target, text);
      changed++;
    }
  }
  git('add', '-A', '--', ...ROOTS, ...ROOT_FILES.filter((f) => existsSync(join(root, f))));
  const moved = git('diff', '--cached', '--name-status', '-M').split('\n').filter((l) => /^R/.test(l)).length;
  process.stdout.write(`regroup-core: ${MAPPING.length} entries moved (${moved} files renamed), ${changed} files edited; staged.\n` + 'Next: git commit -m "Regroup src/core into levels (mechanical: scripts/regroup-core.mjs)", then add its hash to .git-blame-ignore-revs.\n');
}

main();
