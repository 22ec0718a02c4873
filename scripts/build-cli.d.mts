/** Bundle the CLI of the checkout at `root` (default: this checkout) into `outdir` (default `<root>/out/cli`). */
export function buildCli(root?: string, outdir?: string): Promise<void>;
