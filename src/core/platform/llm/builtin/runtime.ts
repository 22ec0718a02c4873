/**
 * The engine's end of the built-in model runtime: one host process (llamaHost.ts, started with
 * child_process.fork on the first request, never on the engine's start) that owns llama.cpp. A
 * request is cancelled through its AbortSignal; when the host dies (a native crash, SIGKILL, out of
 * memory) every request in flight fails with a MODEL_ERROR that says so, and the next request
 * starts a fresh host.
 */
import { fork, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { AppError, ERROR_CODES, type ErrorCode } from '../../../../shared/contract';
import type { HostMessage, HostReply, HostRequest, HostSettings } from './hostProtocol';

/** Options of {@link LlamaRuntime}. */
export interface LlamaRuntimeOptions {
  /** CPU threads per context (default: all cores; tests use 1 — two spinning threads on a busy 2-core machine are 100× slower). */
  threads?: number;
  /** Use Metal / CUDA / Vulkan where the prebuilt binary supports it (default 'auto'; tests: false). */
  gpu?: false | 'auto';
  /** Unload a model unused this long (default 5 minutes). */
  idleMs?: number;
  /** The host script (default: llamaHost.js beside this module: the source bootstrap, or the bundled entry). */
  script?: string;
}

type Pending = { resolve: (value: unknown) => void; reject: (error: unknown) => void; onDelta?: (text: string) => void; what: string };

/** Requests without their id: the runtime numbers them. */
export type RuntimeRequest = HostRequest extends infer R ? (R extends HostRequest ? Omit<R, 'id'> : never) : never;

const STDERR_KEEP = 2000;

/** One host process at a time, started on demand. */
export class LlamaRuntime {
  private child: ChildProcess | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private stderr = '';
  private readonly settings: HostSettings;
  private readonly script: string;

  constructor(options: LlamaRuntimeOptions = {}) {
    this.settings = { gpu: options.gpu ?? 'auto', idleMs: options.idleMs ?? 5 * 60_000, ...(options.threads ? { threads: options.threads } : {}) };
    this.script = options.script ?? join(__dirname, 'llamaHost.js');
  }

  /** The host's process id while one runs (tests kill it to check that a crash stays contained). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Send one request; resolves with the host's result. `what` names the model in error messages. */
  request<T>(request: RuntimeRequest, what: string, signal?: AbortSignal, onDelta?: (text: string) => void): Promise<T> {
    if (signal?.aborted) return Promise.reject(abortError());
    const child = this.start();
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        if (!this.pending.delete(id)) return;
        this.idleChannel();
        child.send({ type: 'abort', id } satisfies HostMessage, () => undefined);
        reject(abortError());
      };
      const settle = <V>(fn: (v: V) => void) => (v: V) => {
        signal?.removeEventListener('abort', onAbort);
        fn(v);
      };
      this.pending.set(id, { resolve: settle(resolve as (v: unknown) => void), reject: settle(reject), onDelta, what });
      signal?.addEventListener('abort', onAbort, { once: true });
      child.channel?.ref();
      child.send({ ...request, id } as HostMessage, (error) => {
        if (error) this.pending.get(id)?.reject(error);
      });
    });
  }

  /** Stop the host (requests in flight fail as cancelled). */
  async dispose(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      p.reject(new AppError('CANCELLED', 'The built-in model runtime was stopped.'));
    }
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      // Held while it stops: an unreferenced child would let the process end before this settles.
      child.ref();
      child.kill();
    });
  }

  private start(): ChildProcess {
    if (this.child) return this.child;
    this.stderr = '';
    // ELECTRON_RUN_AS_NODE: under Electron, fork runs the Electron binary; this makes it plain Node.
    const child = fork(this.script, [], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' }, serialization: 'advanced' });
    this.child = child;
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => (this.stderr = (this.stderr + chunk).slice(-STDERR_KEEP)));
    child.on('message', (reply: HostReply) => this.onReply(reply));
    child.on('error', (error) => this.onExit(child, error.message));
    child.on('exit', (code, signal) => this.onExit(child, signal ? `killed by ${signal}` : `exit code ${code}`));
    child.send({ type: 'settings', settings: this.settings } satisfies HostMessage);
    child.unref();
    // stderr is a pipe socket: it must not keep the process alive either.
    (child.stderr as Socket | null)?.unref();
    return child;
  }

  private onReply(reply: HostReply): void {
    if (reply.type === 'ready') return;
    const p = this.pending.get(reply.id);
    if (!p) return; // cancelled meanwhile
    if (reply.type === 'delta') return p.onDelta?.(reply.text);
    this.pending.delete(reply.id);
    this.idleChannel();
    if (reply.type === 'result') p.resolve(reply.value);
    else if (reply.code === 'CANCELLED') p.reject(abortError());
    else if ((ERROR_CODES as readonly string[]).includes(reply.code ?? '')) p.reject(new AppError(reply.code as ErrorCode, reply.message));
    else p.reject(new AppError('MODEL_ERROR', `The built-in model runtime failed on ${p.what}: ${reply.message}`));
  }

  private onExit(child: ChildProcess, how: string): void {
    if (this.child !== child) return;
    this.child = undefined;
    const said = this.stderr.trim().split('\n').slice(-3).join(' ').trim();
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      p.reject(new AppError('MODEL_ERROR', `The built-in model runtime stopped (${how}) while running ${p.what}${said ? `; it said: ${said}` : ''}. The app is unaffected; try again — if it repeats, the model may be damaged or too large for this machine's memory.`, { retryable: true }));
    }
  }

  /** With nothing in flight, the IPC channel must not keep a CLI process alive. */
  private idleChannel(): void {
    if (!this.pending.size) this.child?.channel?.unref();
  }
}

function abortError(): Error {
  const error = new Error('The operation was aborted.');
  error.name = 'AbortError';
  return error;
}
