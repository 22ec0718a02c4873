/**
 * Whole-process timings of the CLI that need more than a wall clock around `spawnSync` (shared by
 * bench/cli.bench.ts and the CI performance check, bench/perfCheck.ts): `cra chat --json` until its
 * sources line, and `cra serve` until it prints its URL and answers its first search over HTTP.
 */
import { spawn } from 'node:child_process';

/** Milliseconds from spawning `node args…` (a `cra chat … --json`) until its first line, the sources, arrives on stdout. */
export function timeToSources(args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let at: number | undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (at === undefined && out.includes('\n')) {
        at = performance.now() - started;
        if (!out.startsWith('{"type":"sources"')) reject(new Error(`cra chat printed ${out.slice(0, 200)} before its sources`));
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    child.on('close', (code) => (code === 0 && at !== undefined ? resolve(at) : reject(new Error(`cra chat exited ${code}: ${err.slice(-1000)}`))));
  });
}

/** One `cra serve` start: until its URL line, and the first `search/query` over HTTP after it. */
export interface ServeTiming {
  /** Spawn → the "serving on <url>" line (the engine started, the server listening). */
  readyMs: number;
  /** The first `search/query` request's round trip (opens the repository's index). */
  firstSearchMs: number;
}

/** POST one contract request to a running `cra serve`; its value, or an error with the envelope's message. */
async function call(base: string, token: string, method: string, input: unknown): Promise<unknown> {
  const res = await fetch(`${base}/api/${method}`, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify(input) });
  const envelope = (await res.json()) as { ok: boolean; value?: unknown; error?: { message: string } };
  if (!envelope.ok) throw new Error(`${method}: ${envelope.error?.message ?? res.status}`);
  return envelope.value;
}

/**
 * Start `node cra --data-dir DATA serve --port 0 --renderer DIR`, time it to its URL line, run
 * `search/query` for `query` on the repository at `repo.path` (its id resolved first, untimed, unless
 * `repo.id` is given), then stop it with SIGINT and wait for it to exit.
 */
export async function serveOnce(cra: string, dataDir: string, rendererDir: string, repo: { path: string; id?: string }, query: string): Promise<ServeTiming & { repoId: string }> {
  const started = performance.now();
  const child = spawn(process.execPath, [cra, '--data-dir', dataDir, 'serve', '--port', '0', '--renderer', rendererDir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  try {
    const url = await new Promise<URL>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString('utf8');
        const found = /serving on (http:\/\/\S+)/.exec(out);
        if (found) resolve(new URL(found[1]!));
      });
      void exited.then((code) => reject(new Error(`cra serve exited ${code} before its URL: ${err.slice(-1000)}`)));
    });
    const readyMs = performance.now() - started;
    const token = url.searchParams.get('token') ?? '';
    const repoId = repo.id ?? ((await call(url.origin, token, 'repos/resolve', { path: repo.path })) as { id: string }).id;
    const asked = performance.now();
    await call(url.origin, token, 'search/query', { repoId, query });
    return { readyMs, firstSearchMs: performance.now() - asked, repoId };
  } finally {
    child.kill('SIGINT');
    await exited;
  }
}
