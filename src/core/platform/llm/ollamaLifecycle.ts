import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { ModelServerStatus } from '../../../shared/contract';
import { probeVersion } from './modelManager';

/** One line saying how to get Ollama (only for the local default address with no `ollama` binary). */
export function installHint(address: string): string {
  return `Ollama is not installed (nothing answers at ${address}) — install it from https://ollama.com/download, then try again.`;
}

/** Where the address came from: the config's base_url, $OLLAMA_HOST, or the local default. */
export type AddressSource = 'base_url' | 'OLLAMA_HOST' | 'default';

/** The model server a check looks at, as the config and environment name it. */
export interface ServerTarget {
  address: string;
  provider: 'ollama' | 'openai_compat' | 'builtin';
  allowStart: boolean;
  /** Unset means the default (tests and callers that only know an address). */
  source?: AddressSource;
  /** The config could not be loaded: its message (file:line, key, what is allowed); nothing is probed. */
  configError?: string;
}

/** "No model server answers at <url> (set by OLLAMA_HOST)": for an address someone configured. */
export function noServerHint(address: string, source: AddressSource | undefined, provider: 'ollama' | 'openai_compat' | 'builtin' = 'ollama'): string {
  const by = source === 'base_url' ? ' (set by [models].base_url)' : source === 'OLLAMA_HOST' ? ' (set by OLLAMA_HOST)' : '';
  const what = provider === 'ollama' ? 'start Ollama there' : 'start it';
  return `No model server answers at ${address}${by} — ${what}, or fix [models].base_url / OLLAMA_HOST, then retry.`;
}

/** Where the lifecycle looks and what it may do. */
export interface LifecycleOptions {
  /** The current server address and provider (read on every check: the config may change). */
  target(): ServerTarget;
  /** Called whenever the status changes. */
  onStatus(status: ModelServerStatus): void;
  env?: NodeJS.ProcessEnv;
  /** Seconds to wait for a started server to answer (default 20). */
  startTimeoutS?: number;
}

/** Find an executable on PATH (with the Windows extensions where they apply). */
export function findOnPath(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const exts = process.platform === 'win32' ? (env.PATHEXT ?? '.EXE;.CMD').split(';') : [''];
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    for (const ext of exts) {
      const candidate = join(dir, name + ext);
      try {
        accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

/** `ollama --version` → "0.5.7" (undefined when it cannot be run). */
export function binaryVersion(binary: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(binary, ['--version'], { timeout: 3000 }, (_error, stdout, stderr) => {
      const match = /(\d+\.\d+\.\d+[\w.-]*)/.exec(`${stdout}\n${stderr}`);
      resolve(match?.[1]);
    });
  });
}

function isLoopback(address: string): boolean {
  try {
    const host = new URL(address).hostname;
    return host === '127.0.0.1' || host === 'localhost' || host === '[::1]' || host === '::1';
  } catch {
    return false;
  }
}

/**
 * The model server's lifecycle: checks health, finds the `ollama` binary and its version,
 * starts `ollama serve` when the server is down and the user allowed it, and on shutdown stops
 * only a server it started itself.
 */
export class OllamaLifecycle {
  private child: ChildProcess | undefined;
  private starting = false;
  private last: ModelServerStatus | undefined;
  private binary: { path?: string; version?: string; at: number } | undefined;

  constructor(private readonly options: LifecycleOptions) {}

  /** The last known status, without a new check. */
  current(): ModelServerStatus | undefined {
    return this.last;
  }

  /** Check the server now (and start it when allowed and down). */
  async check(options: { mayStart?: boolean } = {}): Promise<ModelServerStatus> {
    const { address, provider, allowStart, source, configError } = this.options.target();
    if (configError) return this.publish({ state: 'config_invalid', reachable: false, provider, startedByUs: this.isOurs(), address, hint: configError });
    // The built-in runtime is part of the app: there is no server to probe or start.
    if (provider === 'builtin') return this.publish({ state: 'running', reachable: true, provider, version: 'built-in', startedByUs: false, address, hint: '' });
    const version = provider === 'ollama' ? await probeVersion(address) : await probeOpenAi(address);
    if (version) return this.publish({ state: 'running', reachable: true, provider, version, startedByUs: this.isOurs(), address, hint: '', ...(await this.binaryInfo()) });
    if (provider === 'openai_compat') {
      return this.publish({ state: 'unreachable', reachable: false, provider, startedByUs: false, address, hint: noServerHint(address, source, provider) });
    }
    const bin = await this.binaryInfo();
    // "Not installed" only when nobody named an address: a configured one that does not answer is
    // a server that is down or an address that is wrong, whatever this machine has installed.
    if (!isLoopback(address) || (!bin.binaryPath && source !== undefined && source !== 'default')) {
      return this.publish({ state: 'unreachable', reachable: false, provider, startedByUs: false, address, hint: noServerHint(address, source), ...bin });
    }
    if (!bin.binaryPath) return this.publish({ state: 'not_installed', reachable: false, provider, startedByUs: false, address, hint: installHint(address) });
    if ((allowStart || options.mayStart) && !this.starting) return this.start(address, bin);
    return this.publish({
      state: this.starting ? 'starting' : 'not_running',
      reachable: false,
      provider,
      startedByUs: false,
      address,
      hint: this.starting ? 'Starting Ollama…' : `Ollama is installed but not running at ${address} — press Start (or run \`ollama serve\`), then Retry.`,
      ...bin,
    });
  }

  /** Stop the server if (and only if) this app started it. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }

  private isOurs(): boolean {
    return Boolean(this.child && this.child.exitCode === null);
  }

  private async start(address: string, bin: { binaryPath?: string; binaryVersion?: string }): Promise<ModelServerStatus> {
    this.starting = true;
    const url = new URL(address);
    this.publish({ state: 'starting', reachable: false, provider: 'ollama', startedByUs: true, address, hint: 'Starting Ollama…', ...bin });
    let stderr = '';
    const child = spawn(bin.binaryPath as string, ['serve'], { env: { ...(this.options.env ?? process.env), OLLAMA_HOST: url.host }, stdio: ['ignore', 'ignore', 'pipe'] });
    this.child = child;
    child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
    child.once('error', (e) => (stderr += String(e)));
    const deadline = Date.now() + (this.options.startTimeoutS ?? 20) * 1000;
    try {
      while (Date.now() < deadline && child.exitCode === null) {
        const version = await probeVersion(address, 1000);
        if (version) return this.publish({ state: 'running', reachable: true, provider: 'ollama', version, startedByUs: true, address, hint: '', ...bin });
        await new Promise((r) => setTimeout(r, 300));
      }
      await this.stop();
      const why = stderr.trim().split('\n').pop() ?? 'no output';
      return this.publish({ state: 'not_running', reachable: false, provider: 'ollama', startedByUs: false, address, hint: `\`ollama serve\` did not come up (${why}). Run it in a terminal to see why, then press Retry.`, ...bin });
    } finally {
      this.starting = false;
    }
  }

  private async binaryInfo(): Promise<{ binaryPath?: string; binaryVersion?: string }> {
    // PATH lookups are cheap, `ollama --version` is not: cache both for a minute.
    if (!this.binary || Date.now() - this.binary.at > 60_000) {
      const path = findOnPath('ollama', this.options.env);
      this.binary = { path, version: path ? await binaryVersion(path) : undefined, at: Date.now() };
    }
    return { ...(this.binary.path ? { binaryPath: this.binary.path } : {}), ...(this.binary.version ? { binaryVersion: this.binary.version } : {}) };
  }

  private publish(partial: Omit<ModelServerStatus, 'checkedAt'>): ModelServerStatus {
    const status: ModelServerStatus = { ...partial, checkedAt: new Date().toISOString() };
    const changed = !this.last || this.last.state !== status.state || this.last.address !== status.address || this.last.version !== status.version;
    this.last = status;
    if (changed) this.options.onStatus(status);
    return status;
  }
}

async function probeOpenAi(address: string): Promise<string | undefined> {
  const base = address.replace(/\/+$/, '');
  try {
    const res = await fetch(`${base.endsWith('/v1') ? base : `${base}/v1`}/models`, { signal: AbortSignal.timeout(1500) });
    return res.ok ? 'OpenAI-compatible' : undefined;
  } catch {
    return undefined;
  }
}
