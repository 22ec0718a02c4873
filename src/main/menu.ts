import { join } from 'node:path';
import { dialog, Menu, type MenuItemConstructorOptions } from 'electron';
import { packageRoot } from '../core/platform/paths';
import { describeInstall, installCliLauncher } from '../hosts/cli/launcher/cliLauncher';

/** Help → Install Command-Line Tool: `cra` on the PATH (as `cra install-cli` does), the outcome in a dialog. */
async function installCommandLineTool(): Promise<void> {
  const craJs = join(packageRoot(), 'bin', 'cra.js');
  try {
    const message = describeInstall(installCliLauncher({ craJs }), craJs);
    await dialog.showMessageBox({ type: 'info', title: 'Command-line tool', message: 'The `cra` command is installed.', detail: message });
  } catch (error) {
    await dialog.showMessageBox({ type: 'error', title: 'Command-line tool', message: 'The `cra` command was not installed.', detail: error instanceof Error ? error.message : String(error) });
  }
}

/** The native menu with the usual roles. */
export function installMenu(): void {
  const isMac = process.platform === 'darwin';
  const template: MenuItemConstructorOptions[] = [
    ...(isMac ? [{ role: 'appMenu' as const }] : []),
    { role: 'fileMenu' },
    { role: 'editMenu' },
    { role: 'viewMenu' },
    { role: 'windowMenu' },
    {
      role: 'help',
      submenu: [
        ...(process.platform === 'win32' ? [] : [{ label: 'Install Command-Line Tool (cra)…', click: () => void installCommandLineTool() }]),
        { label: 'Clean Room on the command line: run `cra --help`', enabled: false },
      ],
    },
  ];
  Menu.setApplicationMenu(Menu.buildFromTemplate(template));
}
