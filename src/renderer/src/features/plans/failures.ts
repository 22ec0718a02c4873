/**
 * A run's failure in product words: what happened and what to try, from the engine's reason (kept
 * as the technical detail). Small models fail in a few ways often — an edit in the wrong format, an
 * edit that does not match the file, a plan in the wrong shape — and each gets its own advice.
 */
export interface Explained {
  /** What happened, for a user who never saw the model's prompt. */
  what: string;
  /** What to try next. */
  advice: string;
  /** The engine's own words (shown behind "details"). */
  detail: string;
}

const RETRY_OR_BIGGER = 'Run it again (small models often get it right on a second try), or give that stage a larger model on the Models page.';

const RULES: Array<{ test: RegExp; what: string; advice: string }> = [
  {
    test: /no edit block|no unified diff hunk|has no =======|edit block \d+/i,
    what: "The coding model's reply had no edit the app could apply.",
    advice: `${RETRY_OR_BIGGER} A smaller step in the plan helps too.`,
  },
  {
    test: /SEARCH text (was not found|matches more than one)|does not match the file|creates the file .* but it exists|file does not exist/i,
    what: "The coding model's edit did not match the file as it is (it quoted lines the file does not have).",
    advice: `${RETRY_OR_BIGGER} Naming the function to change in the plan helps it quote the right lines.`,
  },
  {
    test: /^validation failed/i,
    what: 'The change was made, but it failed its checks.',
    advice: 'Look at the check output in the step, then run again, or edit the plan to describe the fix more precisely.',
  },
  {
    test: /\b[a-z_]+\.\d+(\.[a-z_0-9]+)*: |^\(root\): |ids are 1–40|expected (object|array|string)|not valid JSON|no JSON/i,
    what: "The reasoning model's plan was not in the shape the app needs.",
    advice: `${RETRY_OR_BIGGER} Or make the plan yourself: Plan, edit it, then Run.`,
  },
  {
    test: /interrupted|process running it stopped/i,
    what: 'The run stopped because the app stopped while it ran.',
    advice: 'Resume goes on from the last completed step.',
  },
  {
    test: /cancel/i,
    what: 'The run was cancelled.',
    advice: 'Run it again when you are ready; nothing was written to your files.',
  },
  {
    test: /timed? ?out|deadline/i,
    what: 'The model took too long to answer.',
    advice: 'Run it again, or give that stage a smaller, faster model on the Models page.',
  },
  {
    test: /ECONNREFUSED|fetch failed|model server|not reachable|connect/i,
    what: 'The model server could not be reached.',
    advice: 'Start the model server (the status bar shows it), then run again.',
  },
];

/** Explain one failure reason. */
export function explainFailure(reason: string): Explained {
  const text = reason.replace(/^the edits did not apply: /i, '');
  const rule = RULES.find((r) => r.test.test(text));
  if (rule) return { what: rule.what, advice: rule.advice, detail: reason };
  return { what: 'A step of the run failed.', advice: 'Run it again, or edit the plan and run that.', detail: reason };
}
