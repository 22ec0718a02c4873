import { Menu, type MenuItemConstructorOptions } from 'electron';

/** The native menu with the usual roles. */
export function installMenu(): void {
  const isMac = process.platform === 'darwin';
  const template: MenuItemConstructorOptions[] = [
    ...(isMac ? [{ role: 'appMenu' as const }] : []),
    { role: 'fileMenu' },
    { role: 'editMenu' },
    { role: 'viewMenu' },
    { role: 'windowMenu' },
    { role: 'help', submenu: [{ label: 'Clean Room on the command line: run `cra --help`', enabled: false }] },
  ];
  Menu.setApplicationMenu(Menu.buildFromTemplate(template));
}
