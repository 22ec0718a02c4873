import type { InstalledModel, LoadedModel, ModelDetails } from '../../../shared/contract';
import { AppError } from '../../../shared/contract';
import { capabilityOfName } from '../../../shared/contract/models';
import { classifyError } from './errors';
import { ollamaClient } from './ollamaProvider';

/** Run an Ollama management call with a short timeout, turning failures into clear AppErrors. */
async function call<T>(baseUrl: string, fn: (client: ReturnType<typeof ollamaClient>) => Promise<T>, model?: string, timeoutMs = 10_000): Promise<T> {
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    return await fn(ollamaClient(baseUrl, signal));
  } catch (error) {
    throw classifyError(error, { baseUrl, model, abortReason: signal.aborted ? 'timeout' : undefined, timeoutMs }).error;
  }
}

type Details = { family?: string; parameter_size?: string; quantization_level?: string } | undefined;

function detailFields(d: Details) {
  return {
    ...(d?.family ? { family: d.family } : {}),
    ...(d?.parameter_size ? { parameters: d.parameter_size } : {}),
    ...(d?.quantization_level ? { quantization: d.quantization_level } : {}),
  };
}

/** The context length from /api/show's model_info (`<arch>.context_length`). */
function contextLengthOf(info: unknown): number | undefined {
  if (!info || typeof info !== 'object') return undefined;
  for (const [key, value] of Object.entries(info as Record<string, unknown>)) {
    if (key.endsWith('.context_length') && typeof value === 'number') return value;
  }
  return undefined;
}

/** Installed models with details, context length (from show) and whether each is loaded. */
export async function listInstalled(baseUrl: string): Promise<InstalledModel[]> {
  const [tags, ps] = await Promise.all([call(baseUrl, (c) => c.list()), call(baseUrl, (c) => c.ps())]);
  const loaded = new Set(ps.models.map((m) => m.name));
  const shows = await Promise.all(tags.models.map((m) => call(baseUrl, (c) => c.show({ model: m.name }), m.name).catch(() => undefined)));
  return tags.models.map((m, i) => {
    const contextLength = contextLengthOf(shows[i]?.model_info);
    const caps = shows[i]?.capabilities;
    const capability = caps?.includes('embedding') && !caps.includes('completion') ? 'embed' : caps?.includes('completion') ? 'generate' : capabilityOfName(m.name);
    return {
      name: m.name,
      capability,
      sizeBytes: m.size,
      loaded: loaded.has(m.name),
      ...detailFields(m.details),
      ...(contextLength ? { contextLength } : {}),
      ...(m.modified_at ? { modifiedAt: String(m.modified_at) } : {}),
    };
  });
}

/** Details of one model (MODEL_NOT_FOUND when it is not installed). */
export async function showModel(baseUrl: string, name: string): Promise<ModelDetails> {
  const s = await call(baseUrl, (c) => c.show({ model: name }), name);
  const contextLength = contextLengthOf(s.model_info);
  return {
    name,
    capabilities: s.capabilities ?? [],
    ...detailFields(s.details),
    ...(contextLength ? { contextLength } : {}),
    ...(s.modelfile ? { modelfile: s.modelfile } : {}),
    ...(s.template ? { template: s.template } : {}),
    ...(s.parameters ? { parametersText: s.parameters } : {}),
    ...(s.license ? { license: s.license } : {}),
  };
}

/** Models loaded in memory. */
export async function loadedModels(baseUrl: string): Promise<LoadedModel[]> {
  const ps = await call(baseUrl, (c) => c.ps());
  return ps.models.map((m) => ({ name: m.name, sizeBytes: m.size, vramBytes: m.size_vram ?? 0, ...(m.expires_at ? { expiresAt: String(m.expires_at) } : {}) }));
}

/** Delete an installed model. */
export async function deleteModel(baseUrl: string, name: string): Promise<void> {
  try {
    await call(baseUrl, (c) => c.delete({ model: name }), name);
  } catch (error) {
    if (error instanceof AppError && error.code === 'MODEL_NOT_FOUND') throw new AppError('MODEL_NOT_FOUND', `Model '${name}' is not installed at ${baseUrl}.`);
    throw error;
  }
}

/** The server's version, or undefined when nothing answers within `timeoutMs`. */
export async function probeVersion(baseUrl: string, timeoutMs = 1500): Promise<string | undefined> {
  try {
    const res = await fetch(`${baseUrl}/api/version`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return undefined;
    const body = (await res.json()) as { version?: string };
    return body.version ?? 'unknown';
  } catch {
    return undefined;
  }
}
