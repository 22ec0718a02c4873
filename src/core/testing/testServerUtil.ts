/** Small helpers of the loopback model test server (test support only). */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Read a request body as JSON (undefined when empty or not JSON). */
export async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Send a JSON response. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}

/** Resolve after `ms`. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Keep a response open without writing until the client goes away (a stalled server). */
export function waitForClose(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => res.once('close', () => resolve()));
}

/** About four characters a token, at least one. */
export function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

/** The content of the last user message of a chat request. */
export function lastUserText(messages: unknown): string {
  if (!Array.isArray(messages)) return '';
  const users = messages.filter((m): m is { role: string; content: string } => typeof m === 'object' && m !== null && (m as { role?: unknown }).role === 'user');
  return String(users[users.length - 1]?.content ?? '');
}

/** Split a reply into word-sized deltas (spaces kept), as a streaming server would. */
export function replyChunks(text: string): string[] {
  const parts = text.match(/\S+\s*|\s+/g);
  return parts && parts.length ? parts : [''];
}

/** A deterministic unit vector for a text (so equal texts embed equally). */
export function embedVector(text: string, dims: number): number[] {
  const v = new Array<number>(dims).fill(0);
  for (let i = 0; i < text.length; i++) v[i % dims] = (v[i % dims] ?? 0) + ((text.charCodeAt(i) % 31) + 1);
  const norm = Math.sqrt(v.reduce((a, x) => a + x * x, 0)) || 1;
  return v.map((x) => x / norm);
}

/**
 * Whether a prompt is a retrieval judgment (the judges' "Task: … Item: … Answer yes or no." of
 * features/retrieval/judgePrompts.ts) rather than the task analysis, which also starts with "Task:".
 * Scripts that answer the analysis by its prefix use it to leave the judgments to another reply.
 */
export function isJudgment(prompt: string): boolean {
  return prompt.startsWith('Task:') && /\n\nItem:\n/.test(prompt) && /Answer yes or no\.\s*$/.test(prompt);
}
