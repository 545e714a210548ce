/** Where cosmiconfig looks for the config, in order (also what `svc init` avoids clobbering). */
export const SEARCH_PLACES = [
  'package.json',
  '.svcrc',
  '.svcrc.json',
  '.svcrc.yaml',
  '.svcrc.yml',
  '.svcrc.js',
  '.svcrc.mjs',
  'svc.config.json',
  'svc.config.yaml',
  'svc.config.yml',
  'svc.config.js',
  'svc.config.mjs',
  'svc.config.ts',
];
