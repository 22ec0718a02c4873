import { existsSync, readFileSync, statSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { RENDERER_CSP } from './csp';
import { send } from './http';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ttf': 'font/ttf',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
};

/** The built renderer folder, absolute; throws with the fix when it has no index.html. */
export function checkRendererDir(dir: string): string {
  const root = resolve(dir);
  if (!existsSync(join(root, 'index.html'))) {
    throw new Error(`The renderer is not built (no ${join(root, 'index.html')}). Run \`npm run build\` first.`);
  }
  return root;
}

/**
 * Serve a file of the built renderer by its decoded path, never one outside `root`. Client-side
 * routes (no extension) fall back to the app shell; HTML gets the renderer's CSP.
 */
export function serveStatic(res: ServerResponse, root: string, path: string): void {
  const relative = normalize(path).replace(/^([/\\])+/, '');
  let file = resolve(root, relative || 'index.html');
  if (file !== root && !file.startsWith(root + sep)) {
    send(res, 403, 'text/plain', 'Forbidden');
    return;
  }
  if (!existsSync(file) || statSync(file).isDirectory()) {
    // Client-side routes fall back to the app shell; missing assets are 404.
    if (extname(relative) !== '') {
      send(res, 404, 'text/plain', 'Not found');
      return;
    }
    file = join(root, 'index.html');
  }
  const type = TYPES[extname(file)] ?? 'application/octet-stream';
  const headers: Record<string, string> = { 'Content-Type': type, 'X-Content-Type-Options': 'nosniff' };
  if (type.startsWith('text/html')) {
    headers['Content-Security-Policy'] = RENDERER_CSP;
    headers['Cache-Control'] = 'no-store';
  }
  res.writeHead(200, headers);
  res.end(readFileSync(file));
}
