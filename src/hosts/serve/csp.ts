/**
 * The Content-Security-Policy of the renderer, the same in Electron (meta tag) and in `cra serve`
 * (header). Monaco needs inline styles and worker scripts from our own origin; nothing is loaded
 * from anywhere else.
 */
export const RENDERER_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "worker-src 'self' blob:",
  "connect-src 'self' ws://127.0.0.1:* ws://localhost:*",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'none'",
].join('; ');
