/** The two fully isolated environments; an API key fixes which one a request acts in. */
export type Environment = 'test' | 'live';

export const ENVIRONMENTS: readonly Environment[] = ['test', 'live'];
