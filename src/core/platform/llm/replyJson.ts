/**
 * The JSON object in a small model's reply: thinking blocks removed, then the first complete object
 * found by matching braces outside strings — so a ```json fence, prose before it and prose after it
 * (even prose with braces: "Hope this helps {:}") are ignored. The one reader of such replies.
 */

/** The first complete JSON object's text, or null when there is none (no `{`, or cut off). */
export function extractJsonObject(text: string): string | null {
  const body = text.replace(/<think>[\s\S]*?<\/think>/gi, '');
  const start = body.indexOf('{');
  if (start < 0) return null;
  let depth = 0;
  let inString = false;
  for (let i = start; i < body.length; i++) {
    const c = body[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return body.slice(start, i + 1);
  }
  return null;
}

/** The first complete JSON object of a reply, parsed; or why there is none, in words a retry can quote. */
export function parseJsonObject(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  const json = extractJsonObject(text);
  if (json === null) return { ok: false, error: text.replace(/<think>[\s\S]*?<\/think>/gi, '').includes('{') ? 'the JSON object is not closed (cut off?)' : 'no JSON object' };
  try {
    return { ok: true, value: JSON.parse(json) as unknown };
  } catch (error) {
    return { ok: false, error: `not JSON: ${(error as Error).message}` };
  }
}
