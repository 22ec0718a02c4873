import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import * as yaml from 'yaml';
import { packageRoot } from '../../platform/paths';
import { buildPipelines, deepMerge, describeProblem, loadPipelines, nextStep, parsePipelineText, REPO_PIPELINE_DIR } from './pipeline';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A repository folder with these files under .cleanroom/pipelines. */
function repoWith(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'cra-pipelines-'));
  dirs.push(root);
  mkdirSync(join(root, REPO_PIPELINE_DIR), { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(root, REPO_PIPELINE_DIR, name), text);
  return root;
}

describe('the built-in default pipeline', () => {
  it('loads with no problem and no warning, starting at translate_in, with the documented budgets', () => {
    const { pipelines, problems } = loadPipelines();
    expect(problems).toEqual([]);
    const p = pipelines.get('default')!;
    expect(p.warnings).toEqual([]);
    expect(p.settings).toMatchObject({ entry_step_id: 'translate_in', max_context_tokens: 4000, max_history_tokens: 1500, max_turn_loops: 2, retrieval: { mode: 'auto', fusion: 'rrf' } });
    expect(nextStep(p.steps.get('budget')!, 'over_limit')).toBe('summarize_evidence');
    expect(nextStep(p.steps.get('route')!, 'direct')).toBe('answer');
    expect(p.steps.get('answer')!.file).toBe(join('resources', 'pipelines', 'default.yaml'));
  });
});

describe('extends', () => {
  it('deep-merges settings, merges steps by id (replace and add), over two levels', () => {
    const root = repoWith({
      'a-team.yaml': ['pipeline:', '  name: team', '  extends: default', '  settings:', '    max_turn_loops: 4', '    retrieval:', '      mode: bm25', '    graph:', '      intents:', '        FLOW: {depth: 3}'].join('\n'),
      'b-mine.yaml': [
        'pipeline:',
        '  name: mine',
        '  extends: team',
        '  settings:',
        '    max_context_tokens: 900',
        '    retrieval:',
        '      fusion: dist',
        '  steps:',
        '    - id: budget',
        '      action: check_context_budget',
        '      on_ok: answer',
        '      on_over_limit: trim',
        '    - id: trim',
        '      action: trim_context',
        '      next: answer',
      ].join('\n'),
    });
    const { pipelines, problems } = loadPipelines({ repoRoot: root });
    expect(problems).toEqual([]);
    const mine = pipelines.get('mine')!;
    expect(mine.lineage).toEqual(['default', 'team', 'mine']);
    // Deep merge: retrieval.mode from team, fusion from mine, the rest from default.
    expect(mine.settings.retrieval).toMatchObject({ mode: 'bm25', fusion: 'dist', widen: 50 });
    expect(mine.settings).toMatchObject({ max_turn_loops: 4, max_context_tokens: 900, max_history_tokens: 1500, entry_step_id: 'translate_in' });
    expect(mine.settings.graph.intents).toEqual({ FLOW: { depth: 3 } });
    // Steps by id: budget replaced (now in mine's file), trim added, the rest inherited.
    expect(mine.steps.get('budget')).toMatchObject({ file: join(REPO_PIPELINE_DIR, 'b-mine.yaml'), line: 9, transitions: { ok: 'answer', over_limit: 'trim' } });
    expect(mine.steps.get('trim')?.action).toBe('trim_context');
    expect(mine.steps.get('answer')?.file).toBe(join('resources', 'pipelines', 'default.yaml'));
    // The replaced budget step no longer reaches summarize_evidence: a warning with file and line.
    expect(mine.warnings).toEqual([expect.stringMatching(/^resources\/pipelines\/default\.yaml:\d+: step "summarize_evidence" is unreachable from entry step "translate_in"$/)]);
    expect(pipelines.get('default')!.settings.retrieval.mode).toBe('auto');
  });

  it('a loaded set is reused until a file of it changes', () => {
    const root = repoWith({ 'a.yaml': 'pipeline:\n  name: a\n  extends: default\n  settings: {max_turn_loops: 1}\n' });
    const first = loadPipelines({ repoRoot: root });
    expect(loadPipelines({ repoRoot: root })).toBe(first);
    writeFileSync(join(root, REPO_PIPELINE_DIR, 'a.yaml'), 'pipeline:\n  name: a\n  extends: default\n  settings: {max_turn_loops: 3}\n\n');
    expect(loadPipelines({ repoRoot: root }).pipelines.get('a')!.settings.max_turn_loops).toBe(3);
    writeFileSync(join(root, REPO_PIPELINE_DIR, 'b.yaml'), 'pipeline:\n  name: b\n  extends: a\n');
    expect([...loadPipelines({ repoRoot: root }).pipelines.keys()]).toEqual(['default', 'a', 'b']);
  });

  it('deepMerge: child wins, nested objects merge, arrays are replaced', () => {
    expect(deepMerge({ a: 1, b: { c: 1, d: [1, 2] } }, { b: { d: [3] }, e: 2 })).toEqual({ a: 1, b: { c: 1, d: [3] }, e: 2 });
  });
});

describe('validation', () => {
  const problemOf = (text: string) => {
    const root = repoWith({ 'p.yaml': text });
    const set = loadPipelines({ repoRoot: root });
    expect(set.pipelines.has('default')).toBe(true);
    expect(set.pipelines.has('bad')).toBe(false);
    expect(set.problems).toHaveLength(1);
    return describeProblem(set.problems[0]!);
  };
  const file = join(REPO_PIPELINE_DIR, 'p.yaml');

  it('an entry step that does not exist', () => {
    expect(problemOf('pipeline:\n  name: bad\n  extends: default\n  settings:\n    entry_step_id: start\n')).toBe(`${file}:5: pipeline "bad": settings.entry_step_id "start" is not a step of this pipeline`);
  });
  it('a transition to a missing step', () => {
    expect(problemOf('pipeline:\n  name: bad\n  extends: default\n  steps:\n    - id: route\n      action: route_question\n      on_retrieve: search\n      on_direct: answer\n')).toBe(
      `${file}:5: pipeline "bad": step "route" goes to "search", which is not a step of this pipeline`,
    );
  });
  it('an outcome with no transition', () => {
    expect(problemOf('pipeline:\n  name: bad\n  extends: default\n  steps:\n    - id: answer\n      action: answer\n      on_answer: finalize\n')).toMatch(/:5: pipeline "bad": step "answer" \(answer\) has no transition for outcome "request": add on_request or next$/);
  });
  it('an unknown action, an unknown outcome, a bad setting, a parent that does not exist, bad YAML', () => {
    expect(problemOf('pipeline:\n  name: bad\n  extends: default\n  steps:\n    - id: x\n      action: fly\n      next: answer\n')).toMatch(/:5: .*unknown action "fly"; use one of translate_in_if_needed/);
    expect(problemOf('pipeline:\n  name: bad\n  extends: default\n  steps:\n    - id: x\n      action: answer\n      on_maybe: answer\n')).toMatch(/action answer has no outcome "maybe" \(it has: answer, request\)/);
    expect(problemOf('pipeline:\n  name: bad\n  extends: default\n  settings:\n    max_turn_loops: -1\n')).toMatch(new RegExp(`^${file}:5: pipeline "bad": settings.max_turn_loops: .*>=0`));
    expect(problemOf('pipeline:\n  name: bad\n  extends: default\n  settings:\n    retrieval:\n      mood: fast\n')).toMatch(/:6: .*settings\.retrieval: Unrecognized key: "mood"/);
    expect(problemOf('pipeline:\n  name: bad\n  extends: basic\n')).toMatch(/:3: pipeline "bad": extends "basic", which is not a known pipeline/);
    expect(problemOf('pipeline:\n  name: bad\n  steps: [\n')).toMatch(/^.*p\.yaml:\d+: not valid YAML/);
  });
  it('a parent that does not exist: the refusal lists the pipelines that could be extended, not itself nor another refused one', () => {
    const root = repoWith({
      'a-broken.yaml': 'pipeline:\n  name: broken\n  extends: nothing\n',
      'b-team.yaml': 'pipeline:\n  name: team\n  extends: default\n',
      'c-child.yaml': 'pipeline:\n  name: child\n  extends: broken\n',
      'd-loops.yaml': 'pipeline:\n  name: loops\n  extends: default\n  settings:\n    max_turn_loops: many\n',
    });
    const { pipelines, problems } = loadPipelines({ repoRoot: root });
    expect([...pipelines.keys()]).toEqual(['default', 'team']);
    const broken = problems.find((p) => p.name === 'broken')!;
    expect(describeProblem(broken)).toBe(`${join(REPO_PIPELINE_DIR, 'a-broken.yaml')}:3: pipeline "broken": extends "nothing", which is not a known pipeline (known: default, team)`);
    expect(problems.find((p) => p.name === 'child')?.message).toBe('extends "broken", which was refused (see its own problem)');
  });
  it('a cycle of extends, and a name that is taken', () => {
    const root = repoWith({ 'a.yaml': 'pipeline:\n  name: a\n  extends: b\n', 'b.yaml': 'pipeline:\n  name: b\n  extends: a\n', 'c.yaml': 'pipeline:\n  name: default\n' });
    const { pipelines, problems } = loadPipelines({ repoRoot: root });
    expect([...pipelines.keys()]).toEqual(['default']);
    expect(problems.map(describeProblem)).toEqual(
      expect.arrayContaining([expect.stringContaining('extends forms a cycle: a → b → a'), expect.stringContaining('c.yaml:2: pipeline "default": pipeline "default" is already defined in resources/pipelines/default.yaml')]),
    );
  });
  it('a link out of the repository is refused, not followed', () => {
    const outside = mkdtempSync(join(tmpdir(), 'cra-outside-'));
    dirs.push(outside);
    writeFileSync(join(outside, 'x.yaml'), 'pipeline:\n  name: x\n  extends: default\n');
    const root = repoWith({});
    symlinkSync(join(outside, 'x.yaml'), join(root, REPO_PIPELINE_DIR, 'x.yaml'));
    const { pipelines, problems } = loadPipelines({ repoRoot: root });
    expect(pipelines.has('x')).toBe(false);
    expect(problems[0]?.file).toBe(join(REPO_PIPELINE_DIR, 'x.yaml'));
  });
  it.each([
    ['.cleanroom', (root: string, outside: string) => symlinkSync(outside, join(root, '.cleanroom'))],
    ['.cleanroom/pipelines', (root: string, outside: string) => (mkdirSync(join(root, '.cleanroom')), symlinkSync(join(outside, 'pipelines'), join(root, REPO_PIPELINE_DIR)))],
  ])('a %s that is a symbolic link out of the repository is not read: one warning, no name from outside', (linked, link) => {
    const outside = mkdtempSync(join(tmpdir(), 'cra-outside-'));
    dirs.push(outside);
    mkdirSync(join(outside, 'pipelines'));
    writeFileSync(join(outside, 'pipelines', 'secret-payroll.yaml'), 'pipeline:\n  name: payroll\n  extends: default\n');
    const root = mkdtempSync(join(tmpdir(), 'cra-pipelines-'));
    dirs.push(root);
    link(root, outside);
    const { pipelines, problems } = loadPipelines({ repoRoot: root });
    expect([...pipelines.keys()]).toEqual(['default']);
    expect(problems).toEqual([
      { file: linked, message: `${linked} is a symbolic link; the repository's own pipelines are read only from a real folder inside it, so none were read. Replace the link with a folder.` },
    ]);
    expect(JSON.stringify(problems)).not.toContain('payroll');
  });
  it('buildPipelines keeps a valid pipeline when another fails', () => {
    const ok = parsePipelineText('pipeline:\n  name: solo\n  settings:\n    entry_step_id: end\n  steps:\n    - id: end\n      action: finalize\n', 'solo.yaml');
    const bad = parsePipelineText('pipeline:\n  name: broken\n  settings:\n    entry_step_id: nope\n', 'broken.yaml');
    const { pipelines, problems } = buildPipelines([ok, bad]);
    expect([...pipelines.keys()]).toEqual(['solo']);
    expect(problems).toHaveLength(1);
  });
});

describe("the pipelines' parsed YAML kept between processes (cacheDir)", () => {
  const defaultText = readFileSync(join(packageRoot(), 'resources', 'pipelines', 'default.yaml'), 'utf8');
  const texts = [
    defaultText,
    'pipeline:\n  name: bad\n  extends: default\n  settings:\n    entry_step_id: start\n',
    'pipeline:\n  name: bad\n  extends: default\n  steps:\n    - id: route\n      action: route_question\n      on_retrieve: search\n      on_direct: answer\n',
    'pipeline:\n  name: bad\n  extends: default\n  settings:\n    retrieval:\n      mood: fast\n',
    'pipeline:\n  name: bad\n  steps: [\n',
    'pipeline:\n  name: bad\n  steps:\n    - just a string\n    - &a { id: x, action: answer }\n    - *a\n',
    'pipeline:\n  name: bad\n  steps:\n    - &a { id: x, action: answer }\n    - *a\n',
    'pipeline:\n  name: bad\n  steps: { id: x }\n',
    'pipeline: 3\n',
    '1: one\npipeline:\n  name: "num-keys"\n  settings: { 2: two }\n',
    'pipeline:\n  name: bad\n  extends: default\n  settings:\n    max_turn_loops: .inf\n    max_history_tokens: -0\n',
  ];
  const paths: Array<Array<string | number>> = [[], ['pipeline'], ['pipeline', 'name'], ['pipeline', 'settings'], ['pipeline', 'settings', 'entry_step_id'], ['pipeline', 'steps'], ['pipeline', 'steps', 0], ['pipeline', 'steps', 0, 'id'], ['pipeline', 'steps', 1], ['pipeline', 'steps', 2], ['pipeline', 'steps', 99], ['pipeline', 'nope'], [1], ['1'], ['pipeline', 'settings', 2]];
  const cacheRoot = () => {
    const dir = mkdtempSync(join(tmpdir(), 'cra-pipeline-cache-'));
    dirs.push(dir);
    return join(dir, 'cache');
  };
  /** What a parse gives: the raw definition with its lines at `paths` and what it builds beside the default, or its problem. */
  const outcome = (text: string, cacheDir?: string) => {
    try {
      const raw = parsePipelineText(text, 'p.yaml', cacheDir);
      const set = buildPipelines([parsePipelineText(defaultText, 'default.yaml'), ...(raw.name === 'default' ? [] : [raw])], []);
      return {
        raw: { name: raw.name, extendsName: raw.extendsName, settings: raw.settings, steps: raw.steps, file: raw.file },
        lines: paths.map((p) => raw.lineOf(p)),
        pipelines: [...set.pipelines.values()].map((p) => ({ ...p, steps: [...p.steps] })),
        problems: set.problems.map(describeProblem),
      };
    } catch (error) {
      return { problem: (error as { problem?: unknown }).problem ?? String(error) };
    }
  };

  it('gives the same definitions, lines, pipelines and problems as a parse, whether it writes the outline or reads it', () => {
    const cacheDir = cacheRoot();
    for (const text of texts) {
      const parsed = outcome(text);
      expect(outcome(text, cacheDir), text).toEqual(parsed);
      expect(outcome(text, cacheDir), text).toEqual(parsed);
    }
    // The lines are the yaml package's own (Document.getIn), and a step that is an alias of a mapping is still refused.
    for (const text of texts.filter((t) => !t.includes('steps: [\n'))) {
      const lineCounter = new yaml.LineCounter();
      const doc = yaml.parseDocument(text, { lineCounter });
      const lineOf = (p: Array<string | number>) => {
        const node = doc.getIn(p, true) as { range?: [number, number, number] } | undefined;
        return node?.range ? lineCounter.linePos(node.range[0]).line : undefined;
      };
      const got = outcome(text, cacheDir);
      if ('lines' in got) expect(got.lines, text).toEqual(paths.map(lineOf));
    }
    expect(outcome(texts[5]!, cacheDir)).toEqual({ problem: { name: 'bad', file: 'p.yaml', line: 4, message: 'a step must be a mapping with `id` and `action`' } });
    expect(outcome(texts[6]!, cacheDir)).toEqual({ problem: { name: 'bad', file: 'p.yaml', line: 5, message: 'a step must be a mapping with `id` and `action`' } });
    // Kept: one file per text that is valid YAML and that JSON holds as it is (not the syntax error, not .inf and -0).
    expect(readdirSync(cacheDir).filter((f) => f.endsWith('.json'))).toHaveLength(texts.length - 2);
    expect(readdirSync(cacheDir).filter((f) => !f.endsWith('.json'))).toEqual([]);
  });

  it('reads the kept outline instead of parsing, and parses again when the text, the outline version or the yaml package differ', () => {
    const cacheDir = cacheRoot();
    const text = 'pipeline:\n  name: solo\n  settings:\n    entry_step_id: end\n  steps:\n    - id: end\n      action: finalize\n';
    expect(parsePipelineText(text, 'solo.yaml', cacheDir).name).toBe('solo');
    const [file] = readdirSync(cacheDir);
    const kept = JSON.parse(readFileSync(join(cacheDir, file!), 'utf8')) as { version: number; yaml: string; text: string; outline: { root: { pipeline: { name: string } } } };
    expect(kept.text).toBe(text);
    // An edited outline is what the next parse returns: it was read, not parsed.
    kept.outline.root.pipeline.name = 'edited';
    writeFileSync(join(cacheDir, file!), JSON.stringify(kept));
    expect(parsePipelineText(text, 'solo.yaml', cacheDir).name).toBe('edited');
    for (const stale of [{ ...kept, version: kept.version + 1 }, { ...kept, yaml: '0.0.0' }, { ...kept, text: `${text}\n` }]) {
      writeFileSync(join(cacheDir, file!), JSON.stringify(stale));
      expect(parsePipelineText(text, 'solo.yaml', cacheDir).name).toBe('solo');
    }
    writeFileSync(join(cacheDir, file!), '{ not json');
    expect(parsePipelineText(text, 'solo.yaml', cacheDir).name).toBe('solo');
    // A text that differs is parsed (and kept under its own name).
    expect(parsePipelineText(text.replace('solo', 'other'), 'other.yaml', cacheDir).name).toBe('other');
    expect(readdirSync(cacheDir)).toHaveLength(2);
  });

  it('keeps at most 64 outlines: the oldest go first', () => {
    const cacheDir = cacheRoot();
    const textOf = (i: number) => `pipeline:\n  name: p${i}\n`;
    for (let i = 0; i < 66; i++) {
      parsePipelineText(textOf(i), `p${i}.yaml`, cacheDir);
      // Distinct modification times, oldest first.
      const [newest] = readdirSync(cacheDir).filter((f) => readFileSync(join(cacheDir, f), 'utf8').includes(`p${i}\\n`));
      utimesSync(join(cacheDir, newest!), 1_000 + i, 1_000 + i);
    }
    const names = readdirSync(cacheDir).map((f) => (JSON.parse(readFileSync(join(cacheDir, f), 'utf8')) as { outline: { root: { pipeline: { name: string } } } }).outline.root.pipeline.name);
    expect(names).toHaveLength(64);
    expect(names).not.toContain('p0');
    expect(names).not.toContain('p1');
    expect(names).toContain('p2');
    expect(names).toContain('p65');
  });

  it('a cache folder that cannot be written changes nothing but the speed', () => {
    const cacheDir = cacheRoot();
    writeFileSync(cacheDir, 'a file where the folder would be');
    expect(outcome(defaultText, cacheDir)).toEqual(outcome(defaultText));
  });
});
