// Builds kudos-core (scripts/build-package.mjs). Run first: the other packages' declarations import
// its declarations.
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildPackage } from '../../scripts/build-package.mjs';

await buildPackage(dirname(fileURLToPath(import.meta.url)), {
  index: 'src/index.ts',
  'chain/index': 'src/chain/index.ts',
  'redis/index': 'src/redis/index.ts',
  'otel/index': 'src/otel/index.ts',
});
