/** Ollama's default address. */
export const DEFAULT_OLLAMA_URL = 'http://127.0.0.1:11434';

/**
 * Read an OLLAMA_HOST value the way the ollama CLI does: `host[:port]`, `scheme://host[:port]`,
 * or `:port`. Without a scheme the scheme is http and the port 11434; with an explicit http or
 * https scheme and no port, 80 or 443. A listen-everywhere host (0.0.0.0, ::) is dialled as loopback.
 */
export function parseOllamaHost(value: string): string {
  const trimmed = value.trim();
  if (!trimmed) return DEFAULT_OLLAMA_URL;
  const schemeAt = trimmed.indexOf('://');
  const scheme = schemeAt === -1 ? 'http' : trimmed.slice(0, schemeAt).toLowerCase();
  let defaultPort = '11434';
  if (schemeAt !== -1) defaultPort = scheme === 'https' ? '443' : '80';
  const rest = schemeAt === -1 ? trimmed : trimmed.slice(schemeAt + 3);
  const slash = rest.indexOf('/');
  const hostport = slash === -1 ? rest : rest.slice(0, slash);
  const path = slash === -1 ? '' : rest.slice(slash).replace(/\/+$/, '');
  let { host, port } = splitHostPort(hostport);
  if (!host || host === '0.0.0.0') host = '127.0.0.1';
  if (host === '::' || host === '[::]') host = '[::1]';
  port ||= defaultPort;
  return `${scheme}://${host}:${port}${path}`;
}

function splitHostPort(hostport: string): { host: string; port: string } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(hostport);
  if (bracketed) return { host: `[${bracketed[1]}]`, port: bracketed[2] ?? '' };
  const colons = hostport.split(':').length - 1;
  if (colons === 1) {
    const [host = '', port = ''] = hostport.split(':');
    return { host, port };
  }
  if (colons > 1) return { host: `[${hostport}]`, port: '' };
  return { host: hostport, port: '' };
}

/** The model server address: config base_url, else OLLAMA_HOST, else 127.0.0.1:11434. */
export function resolveServerUrl(baseUrl: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (baseUrl) return baseUrl.replace(/\/+$/, '');
  return env.OLLAMA_HOST ? parseOllamaHost(env.OLLAMA_HOST) : DEFAULT_OLLAMA_URL;
}
