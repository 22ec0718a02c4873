import { describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/contract';
import { routerFromToml } from '../../testing/loopbackModels';
import { parseOllamaHost, resolveServerUrl } from './address';
import type { ModelRouter } from './router';

function routerFor(toml: string, env: NodeJS.ProcessEnv = {}): ModelRouter {
  return routerFromToml(toml, { env, file: '/x/config.toml' });
}

const CONFIG = `[models]
coding = "coder:3b"
reasoning = "qwen3:4b"
context_window = 16384
max_tokens = 1000
temperature = 0.2
[models.overrides]
scope = {model = "qwen3:0.6b", context_window = 8192, max_tokens = 16}
plan = "qwen3:8b"
`;

describe('ModelRouter.resolve', () => {
  it('uses a stage override first, with its own limits', () => {
    expect(routerFor(CONFIG).resolve('reasoning', 'scope')).toMatchObject({ model: 'qwen3:0.6b', contextWindow: 8192, maxTokens: 16, temperature: 0.2, source: 'override' });
  });

  it('gives the passes of a stage (precision_pass2) and its group judgments the stage override', () => {
    const router = routerFor(`${CONFIG}precision = "qwen3:1.7b"\n`);
    expect(router.resolve('reasoning', 'precision_pass2')).toMatchObject({ model: 'qwen3:1.7b', source: 'override', stage: 'precision_pass2' });
    expect(router.resolve('reasoning', 'precision_group')).toMatchObject({ model: 'qwen3:1.7b', source: 'override', stage: 'precision_group' });
    expect(router.resolve('reasoning', 'precision_file')).toMatchObject({ model: 'qwen3:1.7b', source: 'override', stage: 'precision_file' });
    expect(router.resolve('reasoning', 'precision_extra')).toMatchObject({ model: 'qwen3:4b', source: 'role' });
  });

  it('takes the role limits for a tag-only override', () => {
    expect(routerFor(CONFIG).resolve('reasoning', 'plan')).toMatchObject({ model: 'qwen3:8b', contextWindow: 16384, maxTokens: 1000 });
  });

  it('falls back to the role when the stage has no override', () => {
    expect(routerFor(CONFIG).resolve('coding', 'execute')).toMatchObject({ model: 'coder:3b', source: 'role', provider: 'ollama' });
    expect(routerFor(CONFIG).resolve('reasoning')).toMatchObject({ model: 'qwen3:4b' });
    expect(routerFor(CONFIG).resolveStage('precision')).toMatchObject({ model: 'qwen3:4b', role: 'reasoning' });
  });

  it('is a hard error naming `cra init` when [models] is missing', () => {
    const router = routerFor('[budget]\ncontext_window = 100\nreserved_tokens = 10\n');
    expect(() => router.resolve('coding')).toThrowError(AppError);
    expect(() => router.resolve('coding')).toThrowError(/No \[models\] section.*cra init/);
  });

  it('says which role has no model', () => {
    expect(() => routerFor('[models]\ncoding = "c"\n').resolve('embedding', 'embedding')).toThrowError(/\[models\]\.embedding/);
  });

  it('takes the address from base_url, else OLLAMA_HOST, else the default', () => {
    expect(routerFor(`${CONFIG}`.replace('[models]\n', '[models]\nbase_url = "http://10.0.0.2:9999/"\n')).resolve('coding').baseUrl).toBe('http://10.0.0.2:9999');
    expect(routerFor(CONFIG, { OLLAMA_HOST: 'gpu-box' }).resolve('coding').baseUrl).toBe('http://gpu-box:11434');
    expect(routerFor(CONFIG).resolve('coding').baseUrl).toBe('http://127.0.0.1:11434');
  });
});

describe('OLLAMA_HOST parsing (as the ollama CLI reads it)', () => {
  it.each([
    ['', 'http://127.0.0.1:11434'],
    ['example.com', 'http://example.com:11434'],
    ['example.com:8080', 'http://example.com:8080'],
    [':4000', 'http://127.0.0.1:4000'],
    ['0.0.0.0', 'http://127.0.0.1:11434'],
    ['https://example.com', 'https://example.com:443'],
    ['http://example.com', 'http://example.com:80'],
    ['http://example.com:5/path/', 'http://example.com:5/path'],
    ['[::1]:7', 'http://[::1]:7'],
  ])('%s → %s', (input, expected) => {
    expect(parseOllamaHost(input)).toBe(expected);
  });

  it('prefers an explicit base_url', () => {
    expect(resolveServerUrl('http://a:1', { OLLAMA_HOST: 'b' })).toBe('http://a:1');
  });
});
