import { describe, expect, it } from 'vitest';
import type { ContextPackage } from '../../../shared/contract';
import { useCliModelRepo } from '../testing/modelRepo';

// One Python import line names three modules: it is the signature of each of their library symbols.
const SETTINGS_PY = ['import io, json, os', '', '', 'def read_settings(path):', '    if not os.path.exists(path):', '        return {}', '    with io.open(path) as handle:', '        return json.load(handle)', ''].join('\n');
const TASK = 'Fix `read_settings` in settings.py: it fails on an empty file';
const RETRIEVE = ['retrieve', TASK, '--stages', 'scope,precision', '--context-window', '32768', '--reserved-tokens', '4096'];

const fx = useCliModelRepo({
  prefix: 'cra-cli-packing-',
  prepare: (repo) => {
    repo.write('settings.py', SETTINGS_PY);
    repo.commit('settings');
  },
});

describe('cra retrieve: packing', () => {
  it('packs an import line once however many modules it imports (one library symbol per line, not one per module)', async () => {
    fx.server.script.respond = () => ({ text: 'yes' });
    const json = await fx.cra([...RETRIEVE, '--repo', fx.repo.root, '--format', 'json']);
    expect(json.status, json.stderr).toBe(0);
    const { package: pkg } = JSON.parse(json.stdout) as { package: ContextPackage };
    const settings = pkg.files.find((f) => f.path === 'settings.py')!;
    const importLine = settings.items.filter((i) => i.startLine === 1);
    expect(importLine).toHaveLength(1);
    expect(importLine[0]).toMatchObject({ detail: 'signature', text: 'import io, json, os' });
    // One symbol for the line, naming what the kept code uses of each module.
    expect(importLine[0]!.symbol!.qualifiedName).toBe('io.open, json.load, os.path.exists');
    expect(pkg.dropped.filter((d) => d.path === 'settings.py')).toEqual([]);

    const md = await fx.cra([...RETRIEVE, '--repo', fx.repo.root, '--format', 'markdown']);
    expect(md.stdout.split('\n').filter((l) => l === 'import io, json, os')).toHaveLength(1);
    const human = await fx.cra([...RETRIEVE, '--repo', fx.repo.root]);
    expect(human.stdout.match(/ lines 1-1 /g)).toHaveLength(1);
  }, 120_000);
});
