/**
 * The built-in runtime's models: `<dataDir>/models/builtin.json` names each model and where its
 * GGUF file is — downloaded into `<dataDir>/models/gguf/`, or a file already on disk (a path, the
 * Hugging Face cache, LM Studio's folder) added where it is, without copying.
 */
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { z } from 'zod';
import { AppError } from '../../../../shared/contract';
import { modelNameSchema } from '../../../../shared/contract/models';
import { writeFileAtomic } from '../../config/configFile';
import { downloadModel, type DownloadOptions } from './download';
import { readGgufFileHeader } from './gguf';
import { modelsDir } from '../../layout';

/** One model of the store. */
export interface StoredModel {
  name: string;
  path: string;
  sizeBytes: number;
  /** Verified at download; absent for a file added by path (it is the user's, and may change). */
  sha256?: string;
  source: 'download' | 'path';
  addedAt: string;
}

const entrySchema = z.object({ path: z.string().min(1), sizeBytes: z.number().int().min(0), sha256: z.string().regex(/^[0-9a-f]{64}$/).optional(), source: z.enum(['download', 'path']), addedAt: z.string() });
const fileSchema = z.object({ version: z.literal(1), models: z.record(z.string(), entrySchema) });

/** The store of one data folder. */
export class ModelStore {
  readonly dir: string;
  readonly file: string;

  constructor(dataDir: string) {
    this.dir = modelsDir(dataDir);
    this.file = join(this.dir, 'builtin.json');
  }

  /** Where downloads go. */
  get downloadDir(): string {
    return join(this.dir, 'gguf');
  }

  /** Every model, by name. */
  list(): StoredModel[] {
    return Object.entries(this.read()).map(([name, e]) => ({ name, ...e }));
  }

  /** The GGUF file of a model, or MODEL_NOT_FOUND saying how to get it. */
  resolvePath(name: string): string {
    const entry = this.read()[name];
    if (!entry) throw new AppError('MODEL_NOT_FOUND', `Model '${name}' is not among the built-in runtime's models (${this.file}). Download it from the curated list, or add a GGUF file you already have by its path.`);
    if (!existsSync(entry.path)) throw new AppError('MODEL_NOT_FOUND', `The file of built-in model '${name}' is gone: ${entry.path}. Download it again, or add it again by its new path.`);
    return entry.path;
  }

  /** Record a model (replacing one of the same name). */
  put(model: StoredModel): void {
    const models = this.read();
    const { name, ...entry } = model;
    models[name] = entry;
    writeFileAtomic(this.file, `${JSON.stringify({ version: 1, models }, null, 2)}\n`);
  }

  /**
   * Add a GGUF file that is already on disk under `name`, where it is (no copy). The file must be a
   * readable GGUF (its header is parsed); a name taken by another file is refused.
   */
  async addByPath(name: string, path: string): Promise<StoredModel> {
    const parsedName = modelNameSchema.safeParse(name);
    if (!parsedName.success) throw new AppError('VALIDATION', `'${name}' is not a usable model name: ${parsedName.error.issues[0]?.message ?? 'invalid'}.`);
    const file = resolve(path);
    if (!existsSync(file) || !statSync(file).isFile()) throw new AppError('VALIDATION', `No file at ${file}. Give the path of a .gguf model file.`);
    await readGgufFileHeader(file);
    const existing = this.read()[parsedName.data];
    if (existing && existing.path !== file) throw new AppError('VALIDATION', `The name '${parsedName.data}' is already used by ${existing.path}. Choose another name.`);
    const model: StoredModel = { name: parsedName.data, path: file, sizeBytes: statSync(file).size, source: 'path', addedAt: new Date().toISOString() };
    this.put(model);
    return model;
  }

  /**
   * Forget a model; a file this store downloaded is deleted with it, a file added by path is the
   * user's and stays where it is.
   */
  remove(name: string): void {
    const models = this.read();
    const entry = models[name];
    if (!entry) throw new AppError('MODEL_NOT_FOUND', `Model '${name}' is not among the built-in runtime's models (${this.file}).`);
    delete models[name];
    writeFileAtomic(this.file, `${JSON.stringify({ version: 1, models }, null, 2)}\n`);
    const shared = Object.values(models).some((m) => m.path === entry.path);
    if (entry.source === 'download' && !shared) rmSync(entry.path, { force: true });
  }

  /** Download a model into the data folder (resumable, verified; see download.ts) and record it under `name`. */
  async download(name: string, url: string, options: Omit<DownloadOptions, 'url' | 'dest'> = {}): Promise<StoredModel> {
    const file = basename(new URL(url).pathname);
    if (!/^[\w.-]+\.gguf$/i.test(file)) throw new AppError('VALIDATION', `${url} does not name a .gguf file.`);
    const done = await downloadModel({ ...options, url, dest: join(this.downloadDir, file) });
    const model: StoredModel = { name, path: done.path, sizeBytes: done.sizeBytes, sha256: done.sha256, source: 'download', addedAt: new Date().toISOString() };
    this.put(model);
    return model;
  }

  private read(): Record<string, Omit<StoredModel, 'name'>> {
    if (!existsSync(this.file)) return {};
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(this.file, 'utf8'));
    } catch (error) {
      throw new AppError('CONFIG_INVALID', `${this.file} is not valid JSON (${(error as Error).message}). Fix or delete it; the model files themselves are untouched.`);
    }
    const parsed = fileSchema.safeParse(json);
    if (!parsed.success) throw new AppError('CONFIG_INVALID', `${this.file} is not a model list this version reads (${parsed.error.issues[0]?.message}). Fix or delete it; the model files themselves are untouched.`);
    return { ...parsed.data.models };
  }
}
