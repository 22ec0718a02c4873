import { AppError } from '../../../shared/contract';
import type { LoadedConfig } from '../config/load';
import { defaultRoleOf, type ModelsConfig, type Provider, type Role, type Stage, STAGES } from '../config/schema';
import { resolveServerUrl } from './address';

/** Everything a provider needs to make one call: which model, where, and with which limits. */
export interface ResolvedModel {
  model: string;
  baseUrl: string;
  provider: Provider;
  temperature: number;
  maxTokens: number;
  contextWindow: number;
  timeoutMs: number;
  role: Role;
  stage?: string;
  /** Where the choice came from, for the assignment table and the audit log. */
  source: 'override' | 'role';
}

/**
 * Resolves which model serves a (role, stage), in the order of docs/design.md, Model routing: a [models.overrides] entry
 * for the stage, else [models].<role>, else — when [models] is missing — a hard error that says to
 * run `cra init`. Constructed once per invocation from the loaded config.
 */
export class ModelRouter {
  constructor(
    private readonly config: LoadedConfig,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  /** The [models] table, or CONFIG_MISSING telling the user to run `cra init`. */
  models(): ModelsConfig {
    const models = this.config.values.models;
    if (!models) {
      const where = this.config.files.length ? this.config.files.join(', ') : `${this.config.primaryFile} (it does not exist)`;
      throw new AppError('CONFIG_MISSING', `No [models] section in ${where}. Run \`cra init\` to write a default config, then pick models on the Models page.`);
    }
    return models;
  }

  /** Resolve the model of a role, optionally for a stage whose override wins. */
  resolve(role: Role, stage?: string): ResolvedModel {
    const models = this.models();
    const base = {
      baseUrl: resolveServerUrl(models.base_url, this.env),
      provider: models.provider,
      temperature: models.temperature,
      timeoutMs: Math.round(models.timeout_s * 1000),
      role,
      ...(stage ? { stage } : {}),
    };
    // precision_pass1..3, precision_group and precision_file are calls of the precision stage and take its override.
    const stageKey = stage?.replace(/^(\w+?)_(?:pass\d+|group|file)$/, '$1');
    const override = stageKey && isStage(stageKey) ? models.overrides[stageKey] : undefined;
    if (typeof override === 'string') {
      return { ...base, model: override, maxTokens: models.max_tokens, contextWindow: models.context_window, source: 'override' };
    }
    if (override) {
      return {
        ...base,
        model: override.model,
        maxTokens: override.max_tokens ?? models.max_tokens,
        contextWindow: override.context_window ?? models.context_window,
        source: 'override',
      };
    }
    const model = models[role];
    if (!model) {
      const file = this.config.primaryFile;
      throw new AppError('CONFIG_MISSING', `No model is assigned to the ${role} role${stage ? ` (stage ${stage})` : ''}. Set [models].${role} in ${file}, or assign one on the Models page.`);
    }
    return { ...base, model, maxTokens: models.max_tokens, contextWindow: models.context_window, source: 'role' };
  }

  /** Resolve a stage with its default role (execute → coding, embedding → embedding, else reasoning). */
  resolveStage(stage: Stage): ResolvedModel {
    return this.resolve(defaultRoleOf(stage), stage);
  }
}

function isStage(value: string): value is Stage {
  return (STAGES as readonly string[]).includes(value);
}
