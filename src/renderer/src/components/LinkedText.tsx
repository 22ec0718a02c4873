/** http(s) addresses in a message, up to whitespace; a trailing comma or full stop is not part of it. */
const URL_PATTERN = /https?:\/\/[^\s<>"'`]+[^\s<>"'`.,;:)]/g;

/**
 * A message with its web addresses as links that open outside the app (a new tab in the browser;
 * the Electron shell hands them to the system browser). Loopback addresses stay text: they are
 * model-server addresses, not pages to visit.
 */
export function LinkedText({ text }: { text: string }) {
  const parts: Array<string | { url: string }> = [];
  let last = 0;
  for (const match of text.matchAll(URL_PATTERN)) {
    const url = match[0];
    const at = match.index ?? 0;
    if (/^https?:\/\/(127\.|localhost|\[::1\])/.test(url)) continue;
    parts.push(text.slice(last, at), { url });
    last = at + url.length;
  }
  parts.push(text.slice(last));
  return (
    <>
      {parts.map((p, i) =>
        typeof p === 'string' ? (
          p
        ) : (
          <a key={i} href={p.url} target="_blank" rel="noopener noreferrer">
            {p.url}
          </a>
        ),
      )}
    </>
  );
}
