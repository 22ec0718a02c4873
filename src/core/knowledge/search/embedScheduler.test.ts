import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { autoEmbeddingEnabled, embeddingSwitch } from './embedScheduler';

describe('autoEmbeddingEnabled', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cra-embed-setting-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('is off by default, follows [retrieval] embeddings, and CRA_EMBEDDINGS overrides the config', () => {
    expect(autoEmbeddingEnabled(dataDir, {})).toBe(false);
    expect(autoEmbeddingEnabled(dataDir, { CRA_EMBEDDINGS: '1' })).toBe(true);
    writeFileSync(join(dataDir, 'config.toml'), '[retrieval]\nmode = "hybrid"\nembeddings = false\n');
    expect(autoEmbeddingEnabled(dataDir, {})).toBe(false);
    expect(autoEmbeddingEnabled(dataDir, { CRA_EMBEDDINGS: '1' })).toBe(true);
    writeFileSync(join(dataDir, 'config.toml'), '[retrieval]\nembeddings = true\n');
    expect(autoEmbeddingEnabled(dataDir, {})).toBe(true);
    expect(autoEmbeddingEnabled(dataDir, { CRA_EMBEDDINGS: '0' })).toBe(false);
  });

  it('reads as unknown (not off) while config.toml cannot be read, so a half-saved file cancels nothing', () => {
    writeFileSync(join(dataDir, 'config.toml'), '[retrieval]\nembeddings = tru\n');
    expect(embeddingSwitch(dataDir, {})).toBeUndefined();
    expect(autoEmbeddingEnabled(dataDir, {})).toBe(false);
    expect(embeddingSwitch(dataDir, { CRA_EMBEDDINGS: '1' })).toBe(true);
  });
});
