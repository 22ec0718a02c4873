import { watch, type FSWatcher } from 'node:fs';

/** Paths under these folders never trigger a re-index. */
const IGNORED = /(^|[/\\])(\.git|node_modules)([/\\]|$)/;

/**
 * Watches a repository folder (recursively) and calls `onChange` once per burst of changes, after
 * `debounceMs` of quiet. Errors (folder removed, too many watches) stop the watcher quietly and
 * are reported through `onError`.
 */
export class RepoWatcher {
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly changed = new Set<string>();

  constructor(
    private readonly root: string,
    private readonly onChange: (paths: string[]) => void,
    private readonly options: { debounceMs?: number; onError?: (error: Error) => void } = {},
  ) {}

  /** Start watching; returns false when the platform or folder does not allow it. */
  start(): boolean {
    try {
      this.watcher = watch(this.root, { recursive: true, persistent: false }, (_event, name) => this.onEvent(name ? String(name) : ''));
      this.watcher.on('error', (error) => {
        this.options.onError?.(error);
        this.stop();
      });
      return true;
    } catch (error) {
      this.options.onError?.(error as Error);
      return false;
    }
  }

  private onEvent(name: string): void {
    if (IGNORED.test(name)) return;
    this.changed.add(name);
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const paths = [...this.changed];
      this.changed.clear();
      this.onChange(paths);
    }, this.options.debounceMs ?? 1000);
    this.timer.unref?.();
  }

  /** Stop watching and drop pending changes. */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.watcher?.close();
    this.watcher = undefined;
  }
}
