import { create } from 'zustand';
import type { RepoFileView } from '../../../../shared/contract';
import type { SearchMode, SearchResponse } from '../../../../shared/contract/search';
import { client } from '../../lib/client';
import { toOpError, type OpError } from '../../lib/errors';
import { definitionOf, moveSelection, openTarget } from './reducers';

/** The file shown in the code view and the lines to reveal. */
export interface OpenedFile {
  repoId: string;
  path: string;
  line?: number;
  endLine?: number;
  /** The symbol the query named: once the file's outline is known, the view moves to its definition. */
  symbol?: string;
}

interface SearchState {
  query: string;
  mode: SearchMode;
  /** The repository and query the shown results belong to. */
  resultsFor: { repoId: string; query: string } | null;
  response: SearchResponse | null;
  isSearching: boolean;
  error: OpError | null;
  /** Index of the selected result (keyboard), -1 when none. */
  selected: number;
  opened: OpenedFile | null;
  file: RepoFileView | null;
  isFileLoading: boolean;
  fileError: OpError | null;
}

interface SearchActions {
  setQuery(query: string): void;
  setMode(mode: SearchMode): void;
  /** Run the current query on a repository; an answer that arrives after a newer query is dropped. */
  search(repoId: string): Promise<void>;
  /** Forget the results (another repository became current). */
  reset(): void;
  /** Move the selection and preview the newly selected result in the file view (at its best line). */
  move(delta: number): void;
  select(index: number): void;
  /** Open the selected result at its best lines. */
  openSelected(): Promise<void>;
  /** Open a file of a repository (loads its view when it is not the open one) and reveal lines. */
  open(target: OpenedFile): Promise<void>;
}

let latestSearch = 0;
let latestFile = 0;

/** The search box, its results and the open file view. */
export const useSearchStore = create<SearchState & SearchActions>()((set, get) => ({
  query: '',
  mode: 'auto',
  resultsFor: null,
  response: null,
  isSearching: false,
  error: null,
  selected: -1,
  opened: null,
  file: null,
  isFileLoading: false,
  fileError: null,
  setQuery: (query) => set({ query }),
  setMode: (mode) => set({ mode }),
  search: async (repoId) => {
    const { query, mode } = get();
    const ticket = ++latestSearch;
    if (!query.trim()) {
      set({ response: null, resultsFor: null, error: null, isSearching: false, selected: -1 });
      return;
    }
    set({ isSearching: true });
    try {
      const response = await client().call('search/query', { repoId, query, mode });
      if (ticket !== latestSearch) return;
      set({ response, resultsFor: { repoId, query }, isSearching: false, error: null, selected: response.results.length > 0 ? 0 : -1 });
    } catch (error) {
      if (ticket !== latestSearch) return;
      set({ response: null, resultsFor: { repoId, query }, isSearching: false, error: toOpError(error), selected: -1 });
    }
  },
  reset: () => {
    latestSearch++;
    latestFile++;
    set({ response: null, resultsFor: null, error: null, isSearching: false, selected: -1, opened: null, file: null, fileError: null, isFileLoading: false });
  },
  move: (delta) => {
    const { selected, response } = get();
    const next = moveSelection(selected, response?.results.length ?? 0, delta);
    if (next === selected) return;
    set({ selected: next });
    void get().openSelected();
  },
  select: (index) => set({ selected: index }),
  openSelected: async () => {
    const { response, selected, resultsFor } = get();
    const result = response?.results[selected];
    if (!result || !resultsFor) return;
    await get().open({ repoId: resultsFor.repoId, ...openTarget(result, resultsFor.query) });
  },
  open: async (target) => {
    const { file, opened } = get();
    if (file && opened && opened.repoId === target.repoId && file.path === target.path) {
      set({ opened: atDefinition(target, file) });
      return;
    }
    set({ opened: target });
    const ticket = ++latestFile;
    set({ isFileLoading: true, fileError: null });
    try {
      const view = await client().call('repos/file', { repoId: target.repoId, path: target.path, maxContentBytes: 1_000_000 });
      if (ticket !== latestFile) return;
      set({ file: view, isFileLoading: false, opened: atDefinition(target, view) });
    } catch (error) {
      if (ticket !== latestFile) return;
      set({ file: null, isFileLoading: false, fileError: toOpError(error) });
    }
  },
}));

/** The target moved to the definition line of the symbol it names (the cursor on it), when the file defines it. */
function atDefinition(target: OpenedFile, file: RepoFileView): OpenedFile {
  const found = target.symbol ? definitionOf(file.symbols, target.symbol) : null;
  return found ? { repoId: target.repoId, path: target.path, line: found.startLine, symbol: target.symbol } : target;
}

/** Selectors of the search store. */
export const searchSelectors = {
  query: (s: SearchState) => s.query,
  mode: (s: SearchState) => s.mode,
  results: (s: SearchState) => s.response?.results ?? null,
  response: (s: SearchState) => s.response,
  resultsFor: (s: SearchState) => s.resultsFor,
  isSearching: (s: SearchState) => s.isSearching,
  error: (s: SearchState) => s.error,
  selected: (s: SearchState) => s.selected,
  opened: (s: SearchState) => s.opened,
  file: (s: SearchState) => s.file,
  isFileLoading: (s: SearchState) => s.isFileLoading,
  fileError: (s: SearchState) => s.fileError,
};
