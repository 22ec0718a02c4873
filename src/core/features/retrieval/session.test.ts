import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type * as dbOpen from '../../platform/db/open';
import { openDatabase, type Db } from '../../platform/db/open';
import { RetrievalSession } from './session';

// The session's own connection, as openDatabase handed it out.
vi.mock('../../platform/db/open', async (importOriginal) => {
  const real = await importOriginal<typeof dbOpen>();
  return { ...real, openDatabase: vi.fn(real.openDatabase) };
});

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('a retrieval session file', () => {
  it('is one rollback-journal file written without a sync per write (scratch state: a sync per write cost 3 to 4 ms of each solve pass)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cra-session-'));
    dirs.push(dir);
    vi.mocked(openDatabase).mockClear();
    const session = RetrievalSession.create(dir, 'task-1', 'run-1');
    const db = vi.mocked(openDatabase).mock.results.at(-1)!.value as Db;
    expect(db.pragma('journal_mode', { simple: true })).toBe('delete');
    expect(db.pragma('synchronous', { simple: true })).toBe(0);
    // Writes still go through whole, and read back.
    session.set('final_context', { files: [] });
    expect(session.get('final_context')).toEqual({ files: [] });
    session.close();
  });

  it('gets its schema and its owner in one write: a file is never seen with its table and without the process that holds it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cra-session-'));
    dirs.push(dir);
    const session = RetrievalSession.create(dir, 'task-2', 'run-2');
    // SQLite's file change counter (header bytes 24-27) counts the commits of a rollback-journal file.
    const commits = () => readFileSync(session.file).readUInt32BE(24);
    expect(commits()).toBe(1);
    expect(session.keys()).toEqual(['owner']);
    expect(session.get('owner')).toMatchObject({ pid: process.pid, runId: 'run-2' });
    session.set('task', { text: 'x' });
    expect(commits()).toBe(2);
    session.close();
  });
});
