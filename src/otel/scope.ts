// The instrumentation scope every span and instrument carries: which library made it, and which
// version (test/integration/otel.test.ts checks it against package.json, where the version is set).

/** The scope's name: the package's. */
export const SCOPE_NAME = 'passport-kudos';
/** The scope's version: the package's. */
export const SCOPE_VERSION = '0.1.0';
