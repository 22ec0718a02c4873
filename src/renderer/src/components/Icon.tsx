/** Small line icons for the activity bar (inline SVG, no icon font to fetch). */
const PATHS: Record<string, string> = {
  repositories: 'M4 5h6l2 2h8v12H4z',
  search: 'M10.5 4a6.5 6.5 0 1 1 0 13 6.5 6.5 0 0 1 0-13zm4.7 11.2L20 20',
  chat: 'M4 5h16v11H9l-5 4z',
  plans: 'M5 4h14v16H5zM8 8h8M8 12h8M8 16h5',
  eval: 'M4 20V4M4 20h16M8 16v-5M12 16V8M16 16v-3',
  models: 'M12 3l8 4.5v9L12 21l-8-4.5v-9zM12 12l8-4.5M12 12v9M12 12L4 7.5',
  logs: 'M5 5h14M5 10h14M5 15h14M5 20h9',
  retrieval: 'M4 4h10v10H4zM7 7h4M7 10h2M12.5 12.5 19 19M15 19h4v-4',
  training: 'M4 6c0-1.7 3.6-3 8-3s8 1.3 8 3-3.6 3-8 3-8-1.3-8-3zM4 6v12c0 1.7 3.6 3 8 3s8-1.3 8-3V6M4 12c0 1.7 3.6 3 8 3s8-1.3 8-3',
  settings: 'M12 8a4 4 0 1 1 0 8 4 4 0 0 1 0-8zM12 2v3M12 19v3M2 12h3M19 12h3M4.9 4.9 7 7M17 17l2.1 2.1M4.9 19.1 7 17M17 7l2.1-2.1',
};

export function Icon(props: { name: string }) {
  return (
    <svg width="22" height="22" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true">
      <path d={PATHS[props.name] ?? PATHS.logs} />
    </svg>
  );
}
