/** The native menu, built without the Electron binary: Electron's Menu is stood in for at the process edge. */
import { describe, expect, it, vi } from 'vitest';

type Item = { role?: string; label?: string; enabled?: boolean; click?: () => void; submenu?: Item[] };
let template: Item[] = [];
let applied: unknown;
vi.mock('electron', () => ({
  Menu: {
    buildFromTemplate: (items: Item[]) => {
      template = items;
      return { built: items };
    },
    setApplicationMenu: (menu: unknown) => (applied = menu),
  },
  dialog: { showMessageBox: async () => ({ response: 0 }) },
}));
const { installMenu } = await import('./menu');

describe('the application menu', () => {
  it('has the usual roles and a Help menu that installs the command-line tool', () => {
    installMenu();
    expect(applied).toEqual({ built: template });
    const roles = template.map((item) => item.role);
    expect(roles).toEqual([...(process.platform === 'darwin' ? ['appMenu'] : []), 'fileMenu', 'editMenu', 'viewMenu', 'windowMenu', 'help']);
    const help = template.at(-1)!.submenu!;
    const install = help.find((item) => item.label?.startsWith('Install Command-Line Tool'));
    if (process.platform === 'win32') expect(install).toBeUndefined();
    else expect(install?.click).toBeTypeOf('function');
    expect(help.some((item) => item.label?.includes('cra --help'))).toBe(true);
  });
});
