export * from './api';
export * from './app';
export * from './bridge';
export * from './define';
export * from './errors';
