import { useChatStore } from '../features/chat/store';
import { useSolveStore } from '../features/plans/solveStore';
import { usePlansStore } from '../features/plans/store';
import { pageOf, useNavStore, type PageId } from './store/navStore';

/**
 * The app's place in the URL's history: the page and its main selection (repository, plan, run,
 * conversation) live in the hash — `#plans?repo=…&run=…` — so Back and Forward move between places
 * inside the app (never out of it to a blank page), and a reload comes back to the same place.
 * The hash works alike for `cra serve` and for Electron's file:// page. The stores stay the truth:
 * this module writes what they show into the history, and on Back/Forward or at boot asks them to
 * show what the URL names.
 */
export interface Place {
  page: PageId;
  repo: string | null;
  plan: string | null;
  run: string | null;
  conv: string | null;
}

const KEYS = ['repo', 'plan', 'run', 'conv'] as const;

/** The hash of a place: `#page`, then its selections as query parameters. */
export function placeToHash(place: Place): string {
  const params = new URLSearchParams();
  for (const key of KEYS) if (place[key]) params.set(key, place[key]);
  const query = params.toString();
  return `#${place.page}${query ? `?${query}` : ''}`;
}

/** The place a hash names (an unknown page is the Repositories page). */
export function hashToPlace(hash: string): Place {
  const [page = '', query = ''] = hash.replace(/^#/, '').split('?', 2);
  const params = new URLSearchParams(query);
  const known = pageOf(page) ?? 'repositories';
  return { page: known, repo: params.get('repo'), plan: params.get('plan'), run: params.get('run'), conv: params.get('conv') };
}

/** Where the stores are now: only the selection that belongs to the page shown. */
function currentPlace(): Place {
  const { page, repoId } = useNavStore.getState();
  const run = page === 'plans' ? useSolveStore.getState().selectedId : null;
  const plan = page === 'plans' && !run ? usePlansStore.getState().selectedId : null;
  const chat = useChatStore.getState();
  const conv = page === 'chat' && chat.conversations.some((c) => c.conversationId === chat.conversationId) ? chat.conversationId : null;
  return { page, repo: repoId, plan, run, conv };
}

/** Whether going from one place to the next is a step the user takes (a history entry) or a fill-in. */
export function isNewEntry(from: Place, to: Place): boolean {
  if (from.page !== to.page || from.run !== to.run) return true;
  if (from.repo && from.repo !== to.repo) return true;
  // A plan or conversation appearing where there was none is the page filling in (the newest plan opens itself).
  if (from.plan && to.plan && from.plan !== to.plan) return true;
  return Boolean(from.conv && to.conv && from.conv !== to.conv);
}

/** Selections the URL names that the stores cannot show yet (their repository's lists are loading). */
let wanted: Place | null = null;
let applying = false;

/** Ask the stores for what `wanted` names, as far as their lists allow; drop what they have done. */
function satisfy(): void {
  if (!wanted) return;
  const want = wanted;
  const repo = useNavStore.getState().repoId;
  if (want.repo && repo !== want.repo) return;
  const solve = useSolveStore.getState();
  const plans = usePlansStore.getState();
  if (want.page === 'plans') {
    if (want.run && solve.repoId === repo) {
      if (solve.selectedId !== want.run) void solve.open(want.run);
      want.run = null;
    } else if (!want.run && solve.selectedId && solve.repoId === repo) void solve.open(null);
    if (want.plan && plans.repoId === repo && plans.isLoaded) {
      if (plans.plans.some((p) => p.id === want.plan) && plans.selectedId !== want.plan) void plans.open(want.plan);
      want.plan = null;
    }
  }
  const chat = useChatStore.getState();
  if (want.page === 'chat' && want.conv && chat.repoId === repo && chat.conversations.length) {
    if (chat.conversations.some((c) => c.conversationId === want.conv) && chat.conversationId !== want.conv && repo) void chat.open(repo, want.conv);
    want.conv = null;
  }
  if (!want.run && !want.plan && !want.conv) wanted = null;
}

/** Show a place: the page and repository at once, the selections as their lists arrive. */
function show(place: Place): void {
  applying = true;
  try {
    const nav = useNavStore.getState();
    if (place.repo && nav.repoId !== place.repo) nav.selectRepo(place.repo);
    if (nav.page !== place.page) nav.go(place.page);
    wanted = { ...place };
    satisfy();
  } finally {
    applying = false;
  }
}

/** After any store change: show what is still wanted, then record where the app is. */
function record(): void {
  if (applying) return;
  applying = true;
  try {
    satisfy();
  } finally {
    applying = false;
  }
  if (wanted) return; // still restoring: the URL keeps naming the place until the stores show it
  const next = currentPlace();
  const hash = placeToHash(next);
  if (hash === window.location.hash) return;
  const from = hashToPlace(window.location.hash);
  if (window.location.hash && isNewEntry(from, next)) window.history.pushState(null, '', hash);
  else window.history.replaceState(null, '', hash);
}

let scheduled = false;
/** Record once after a burst of store changes (one click may change two stores: one history entry). */
function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  queueMicrotask(() => {
    scheduled = false;
    record();
  });
}

/** Start following the stores and the history (once, at boot). Returns a function that stops it. */
export function connectHistory(): () => void {
  const boot = hashToPlace(window.location.hash);
  show(boot);
  const onPop = () => show(hashToPlace(window.location.hash));
  window.addEventListener('popstate', onPop);
  const offs = [
    // A page change by the user ends any restore still waiting (it is no longer the place to show).
    useNavStore.subscribe((s, prev) => {
      if (!applying && s.page !== prev.page) wanted = null;
      schedule();
    }),
    useSolveStore.subscribe(schedule),
    usePlansStore.subscribe(schedule),
    useChatStore.subscribe(schedule),
  ];
  record();
  return () => {
    window.removeEventListener('popstate', onPop);
    offs.forEach((off) => off());
  };
}
