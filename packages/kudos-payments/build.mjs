// Builds kudos-payments (scripts/build-package.mjs), on kudos-core's build (its declarations import
// kudos-core's).
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildPackage } from '../../scripts/build-package.mjs';

await buildPackage(dirname(fileURLToPath(import.meta.url)), {
  index: 'src/index.ts',
  'redis/index': 'src/redis/index.ts',
  'sqlite/index': 'src/sqlite/index.ts',
  'testing/index': 'src/testing/index.ts',
  'otel/index': 'src/otel/index.ts',
});
