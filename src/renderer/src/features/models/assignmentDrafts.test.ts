import { describe, expect, it } from 'vitest';
import type { RecommendedModel, StageAssignment } from '../../../../shared/contract';
import { changedStages, modelChoices, recommendedDrafts } from './assignmentDrafts';

const rec = (name: string, stages: string[]): RecommendedModel => ({ name, purpose: '', stages, downloadBytes: 1, memoryBytes: 1, fit: 'fits', installed: false });
const row = (stage: string, source: StageAssignment['source'], model: string | null, maxTokens: number | null = null): StageAssignment => ({ stage, role: 'reasoning', model, contextWindow: 32768, maxTokens, source });

describe('assignment drafts', () => {
  it('offers installed, then recommended (this stage first, not installed said), then configured models', () => {
    const choices = modelChoices('scope', [{ name: 'qwen3:4b', sizeBytes: 1, loaded: false }], [rec('qwen3:4b', ['plan']), rec('qwen3:1.7b', ['routing']), rec('qwen3:0.6b', ['scope'])], ['custom:1b', 'qwen3:4b', null]);
    expect(choices).toEqual([
      { name: 'qwen3:4b', note: '' },
      { name: 'qwen3:0.6b', note: 'recommended here, not installed' },
      { name: 'qwen3:1.7b', note: 'not installed' },
      { name: 'custom:1b', note: 'in the config, not installed' },
    ]);
  });

  it('lists only models that can do the stage: embedding models for embedding, generation models for the rest', () => {
    const installed = [
      { name: 'qwen3:4b', sizeBytes: 1, loaded: false, capability: 'generate' as const },
      { name: 'nomic-embed-text:latest', sizeBytes: 1, loaded: false, capability: 'embed' as const },
      { name: 'odd-name', sizeBytes: 1, loaded: false, capability: 'embed' as const },
    ];
    const recommended = [rec('qwen3:0.6b', ['scope']), rec('nomic-embed-text', ['embedding'])];
    expect(modelChoices('chat', installed, recommended, ['bge-m3']).map((c) => c.name)).toEqual(['qwen3:4b', 'qwen3:0.6b']);
    expect(modelChoices('embedding', installed, recommended, ['bge-m3', 'qwen3:4b']).map((c) => c.name)).toEqual(['nomic-embed-text:latest', 'odd-name', 'bge-m3']);
  });

  it('fills every stage the setup proposal names ("Use recommended"), with its context window', () => {
    const plan = { models: [{ name: 'qwen3-4b', stages: ['chat', 'plan'], capability: 'generate', installed: true, contextWindow: 8192 }, { name: 'qwen3-0.6b', stages: ['scope'], capability: 'generate', installed: false }] } as unknown as Parameters<typeof recommendedDrafts>[1];
    expect(recommendedDrafts([row('chat', 'role', 'x'), row('scope', 'role', 'x'), row('embedding', 'role', null)], plan)).toEqual({
      chat: { model: 'qwen3-4b', contextWindow: '8192', maxTokens: '' },
      scope: { model: 'qwen3-0.6b', contextWindow: '', maxTokens: '' },
    });
  });

  it('turns the edited rows into one list of changes and leaves untouched rows out', () => {
    const rows = [row('scope', 'role', 'qwen3:4b'), row('plan', 'override', 'qwen3:4b', 99), row('chat', 'role', 'qwen3:4b'), row('routing', 'override', 'x')];
    const drafts = {
      scope: { model: 'qwen3:0.6b', contextWindow: '8192', maxTokens: '16' },
      plan: { model: 'qwen3:4b', contextWindow: '32768', maxTokens: '99' },
      chat: { model: '', contextWindow: '', maxTokens: '' },
      routing: { model: '', contextWindow: '', maxTokens: '' },
    };
    expect(changedStages(rows, drafts)).toEqual([
      { stage: 'scope', model: 'qwen3:0.6b', contextWindow: 8192, maxTokens: 16 },
      { stage: 'routing', model: null },
    ]);
  });
});
