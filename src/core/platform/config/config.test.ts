import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/contract';
import { editConfigFile, editConfigText, initConfigFile, loadConfig, loadUserConfigCached, parseToml, validateConfig } from '.';
import { DEFAULT_CONFIG_TEMPLATE } from './template';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cra-config-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function expectAppError(fn: () => unknown, code: string, ...fragments: string[]): void {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe(code);
    for (const f of fragments) expect((error as AppError).message).toContain(f);
    return;
  }
  throw new Error('expected an AppError');
}

describe('config parsing and validation', () => {
  it('keeps resources/config.default.toml equal to the template the engine writes', () => {
    expect(readFileSync(join(__dirname, '..', '..', '..', '..', 'resources', 'config.default.toml'), 'utf8')).toBe(DEFAULT_CONFIG_TEMPLATE);
  });

  it('parses the default template with the seed defaults', () => {
    const values = validateConfig(parseToml(DEFAULT_CONFIG_TEMPLATE, 't'), 't');
    expect(values.models).toMatchObject({ provider: 'ollama', coding: 'qwen2.5-coder:3b', reasoning: 'qwen3:4b', temperature: 0, context_window: 32768, overrides: {} });
    expect(values.orchestrator).toEqual({ max_parts: 10, max_steps_per_part: 15, max_adjustment_rounds: 3, max_step_attempts: 3, max_refinement_loops: 2 });
    expect(values.budget).toEqual({ context_window: 32768, reserved_tokens: 4096 });
  });

  it('names the key, the value and what is allowed for an invalid value', () => {
    expectAppError(() => validateConfig(parseToml('[models]\ntemperature = 5\n', 'f.toml'), 'f.toml'), 'CONFIG_INVALID', '[models].temperature', '5', 'from 0 to 2');
    expectAppError(() => validateConfig(parseToml('[models]\nprovider = "grpc"\n', 'f'), 'f'), 'CONFIG_INVALID', '[models].provider', '"grpc"', 'ollama');
  });

  it('enforces the budget rules (reserved_tokens < context_window, >= 0)', () => {
    expectAppError(() => validateConfig({ budget: { context_window: 100, reserved_tokens: 100 } }, 'f'), 'CONFIG_INVALID', 'reserved_tokens', 'smaller than context_window');
    expectAppError(() => validateConfig({ budget: { context_window: 0 } }, 'f'), 'CONFIG_INVALID', '[budget].context_window');
    expectAppError(() => validateConfig({ budget: { reserved_tokens: -1 } }, 'f'), 'CONFIG_INVALID', '[budget].reserved_tokens', '-1');
  });

  it('rejects unknown keys and stages by name', () => {
    expectAppError(() => validateConfig({ models: { codin: 'x' } }, 'f'), 'CONFIG_INVALID', '"codin"');
    expectAppError(() => validateConfig({ models: { overrides: { scoop: 'x' } } }, 'f'), 'CONFIG_INVALID', 'scoop');
  });

  it('names file:line and the key of an invalid value, in the user file and in a repository file that overrides it', () => {
    const user = join(dir, 'user.toml');
    const repo = join(dir, 'repo.toml');
    writeFileSync(user, '# comment\n[retrieval]\nmode = "keyword"\ntop_k = "twenty"\n');
    expectAppError(() => loadConfig({ userFile: user }), 'CONFIG_INVALID', `${user}:4: [retrieval].top_k = "twenty"`, 'a whole number from 1 to 200');
    writeFileSync(user, '[retrieval]\ntop_k = 20\n');
    writeFileSync(repo, '[models]\ncoding = "a"\n\n[models.overrides]\nscope = {model = "tiny", max_tokens = -3}\n[orchestrator]\nmax_partz = 3\n');
    expectAppError(() => loadConfig({ userFile: user, repoFile: repo }), 'CONFIG_INVALID', `${repo}:5: [models.overrides.scope].max_tokens = -3`, 'at least 1');
    writeFileSync(repo, '[orchestrator]\nmax_parts = 3\nmax_partz = 3\n');
    expectAppError(() => loadConfig({ userFile: user, repoFile: repo }), 'CONFIG_INVALID', `${repo}:3: unknown key "max_partz" in [orchestrator]`);
    writeFileSync(repo, '[retrieval]\nmode = "fast"\n');
    expectAppError(() => loadConfig({ userFile: user, repoFile: repo }), 'CONFIG_INVALID', `${repo}:2: [retrieval].mode = "fast"`, 'one of "auto", "keyword", "hybrid", "semantic"');
  });

  it('replaces a wrongly typed value with a plain integer (a string with an "e" in it is no float)', () => {
    expect(editConfigText('[retrieval]\ntop_k = "twenty"\n', [{ path: ['retrieval', 'top_k'], value: 30 }], 'f')).toBe('[retrieval]\ntop_k = 30\n');
    expect(editConfigText('[models]\ntemperature = 1e0\n', [{ path: ['models', 'temperature'], value: 1 }], 'f')).toBe('[models]\ntemperature = 1.0\n');
  });

  it('reports an unclosed table header with file, line and the line itself', () => {
    const user = join(dir, 'user.toml');
    writeFileSync(user, '# mine\n[models\ncoding = "a"\n');
    expectAppError(() => loadConfig({ userFile: user }), 'CONFIG_INVALID', `${user}:2:`, 'line 2 reads `[models`');
  });

  it('reports a TOML syntax error with file and line', () => {
    expectAppError(() => parseToml('[models]\ncoding = \n', 'x.toml'), 'CONFIG_INVALID', 'x.toml:2');
  });

  it('lets a repository config override the user config key by key', () => {
    const user = join(dir, 'user.toml');
    const repo = join(dir, 'repo.toml');
    writeFileSync(user, '[models]\ncoding = "a"\nreasoning = "b"\n[models.overrides]\nscope = "tiny"\n');
    writeFileSync(repo, '[models]\nreasoning = "c"\n[models.overrides]\nplan = {model = "big", max_tokens = 99}\n');
    const loaded = loadConfig({ userFile: user, repoFile: repo });
    expect(loaded.values.models).toMatchObject({ coding: 'a', reasoning: 'c', overrides: { scope: 'tiny', plan: { model: 'big', max_tokens: 99 } } });
    expect(loaded.files).toEqual([user, repo]);
    expect(loaded.primaryFile).toBe(repo);
  });

  it('names the repository file when its value is invalid', () => {
    const user = join(dir, 'user.toml');
    const repo = join(dir, 'repo.toml');
    writeFileSync(user, '[models]\ncoding = "a"\n');
    writeFileSync(repo, '[orchestrator]\nmax_parts = "ten"\n');
    expectAppError(() => loadConfig({ userFile: user, repoFile: repo }), 'CONFIG_INVALID', repo, '[orchestrator].max_parts', '"ten"');
  });
});

describe('targeted config edits', () => {
  const text = '# top comment\n[models]\n# the coder\ncoding = "a"   # trailing\ntemperature = 0.0\n\n# budget below\n[budget]\ncontext_window = 8192 # cw\n';

  it('replaces one value and keeps every comment and blank line', () => {
    const next = editConfigText(text, [{ path: ['models', 'coding'], value: 'qwen3:4b' }], 't');
    expect(next).toBe(text.replace('"a"', '"qwen3:4b"'));
  });

  it('keeps floats looking like floats', () => {
    const next = editConfigText(text, [{ path: ['models', 'temperature'], value: 1 }], 't');
    expect(next).toContain('temperature = 1.0\n');
  });

  it('inserts a missing key after the last key of its table, and a missing table at the end', () => {
    const next = editConfigText(
      text,
      [
        { path: ['models', 'reasoning'], value: 'r' },
        { path: ['models', 'overrides', 'scope'], value: { model: 'qwen3:0.6b', max_tokens: 16 } },
      ],
      't',
    );
    expect(next).toContain('temperature = 0.0\nreasoning = "r"\n\n# budget below');
    expect(next.endsWith('[models.overrides]\nscope = {model = "qwen3:0.6b", max_tokens = 16}\n')).toBe(true);
    expect(parseToml(next, 't')).toMatchObject({ models: { reasoning: 'r', overrides: { scope: { model: 'qwen3:0.6b', max_tokens: 16 } } } });
  });

  it('removes a key with its line and leaves the rest', () => {
    const next = editConfigText(text, [{ path: ['budget', 'context_window'], value: undefined }], 't');
    expect(next).toBe('# top comment\n[models]\n# the coder\ncoding = "a"   # trailing\ntemperature = 0.0\n\n# budget below\n[budget]\n');
  });

  it('edits the default template in place, keeping the commented override examples', () => {
    const file = join(dir, 'config.toml');
    initConfigFile(file);
    editConfigFile(file, [
      { path: ['models', 'overrides', 'scope'], value: { model: 'qwen3:0.6b', context_window: 8192, max_tokens: 16 } },
      { path: ['orchestrator', 'max_parts'], value: 4 },
    ]);
    const written = readFileSync(file, 'utf8');
    expect(written).toContain('# Binary decision stages — route to smallest capable model');
    expect(written).toContain('# scope = {model = "qwen3:0.6b", context_window = 8192, max_tokens = 16}\n');
    expect(written).toContain('\nscope = {model = "qwen3:0.6b", context_window = 8192, max_tokens = 16}\n');
    expect(written).toContain('max_parts = 4\n');
    expect(written.split('\n').length).toBe(DEFAULT_CONFIG_TEMPLATE.split('\n').length + 1);
    expect(loadConfig({ userFile: file }).values.models?.overrides.scope).toEqual({ model: 'qwen3:0.6b', context_window: 8192, max_tokens: 16 });
  });

  it('refuses an invalid value and leaves the file byte for byte, with no temporary file behind', () => {
    const file = join(dir, 'config.toml');
    initConfigFile(file);
    const before = readFileSync(file, 'utf8');
    expectAppError(() => editConfigFile(file, [{ path: ['budget', 'reserved_tokens'], value: 40000 }]), 'CONFIG_INVALID', 'reserved_tokens');
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(readdirSync(dir)).toEqual(['config.toml']);
  });

  it('refuses to edit when it cannot do so safely (a table defined inline)', () => {
    const inline = '[models]\ncoding = "a"\noverrides = {scope = "x"}\n';
    expectAppError(() => editConfigText(inline, [{ path: ['models', 'overrides', 'plan'], value: 'y' }], 't'), 'CONFIG_INVALID', 'left unchanged');
  });

  it('says to run cra init when there is no file', () => {
    expectAppError(() => editConfigFile(join(dir, 'none.toml'), [{ path: ['models', 'coding'], value: 'x' }]), 'CONFIG_MISSING', 'cra init');
  });

  it('init does not overwrite an existing file unless forced', () => {
    const file = join(dir, 'config.toml');
    writeFileSync(file, '# mine\n');
    expect(initConfigFile(file).created).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe('# mine\n');
    expect(initConfigFile(file, { force: true }).created).toBe(true);
  });
});

describe('loadUserConfigCached', () => {
  it('re-reads the user config only when the file changes, and never caches an error', () => {
    expect(loadUserConfigCached(dir).values.retrieval.top_k).toBe(20);
    const file = join(dir, 'config.toml');
    writeFileSync(file, '[retrieval]\ntop_k = 7\n');
    const first = loadUserConfigCached(dir);
    expect(first.values.retrieval.top_k).toBe(7);
    expect(loadUserConfigCached(dir)).toBe(first);
    writeFileSync(file, '[retrieval]\ntop_k = "many"\n');
    expectAppError(() => loadUserConfigCached(dir), 'CONFIG_INVALID', 'top_k');
    writeFileSync(file, '[retrieval]\ntop_k = 12\n');
    expect(loadUserConfigCached(dir).values.retrieval.top_k).toBe(12);
  });
});
