/** Bundle the CLI of the checkout at `root` (default: this checkout) into `<root>/out/cli`. */
export function buildCli(root?: string): Promise<void>;
