import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { CuratedManifest } from '../../../shared/contract/training';
import { readUserFile } from '../../platform/fs/userFile';

/** The manifest file of a curated dataset folder. */
export const CURATED_MANIFEST = 'curated.json';

export type { CuratedManifest, CuratedStage, DroppedCounts, WrittenFile } from '../../../shared/contract/training';

/** Read a curated dataset's manifest. */
export function readCuratedManifest(dir: string): CuratedManifest {
  const file = join(dir, CURATED_MANIFEST);
  if (!existsSync(file)) throw new Error(`${dir} holds no curated dataset (no ${CURATED_MANIFEST}).`);
  let m: CuratedManifest;
  try {
    m = JSON.parse(readUserFile(file, { what: 'curated dataset manifest', maxBytes: 64 * 1024 * 1024, fix: 'remove the folder or pick another one' }).toString('utf8')) as CuratedManifest;
  } catch (error) {
    if (error instanceof SyntaxError) throw new Error(`${file} is not JSON, so ${dir} is not a curated dataset.`);
    throw error;
  }
  if (m?.kind !== 'curated' || m.version !== 1) throw new Error(`${file} is not a curated dataset manifest this build reads.`);
  return m;
}
