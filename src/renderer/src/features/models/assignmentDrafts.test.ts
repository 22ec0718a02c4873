import { describe, expect, it } from 'vitest';
import type { RecommendedModel, StageAssignment } from '../../../../shared/contract';
import { changedStages, modelChoices } from './assignmentDrafts';

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
