/**
 * The order of paths that tie on score in the chat's rankings: `a.localeCompare(b)`'s order
 * (ECMA-402: the default collator's), from a collator made when the chat's modules load. ICU builds
 * the default collator at the first comparison, ~5 ms, which fell in the middle of a turn's graph
 * expansion before the sources; `cra chat` loads these modules while the question's language is
 * still being detected (src/hosts/cli/commands/chatCommand.ts), so that cost leaves the turn.
 */
export const comparePaths: (a: string, b: string) => number = new Intl.Collator().compare;
