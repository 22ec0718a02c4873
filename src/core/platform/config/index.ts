export * from './schema';
export * from './load';
export * from './configFile';
export * from './template';
export type { TomlValue, TomlScalar } from './tomlEdit';
