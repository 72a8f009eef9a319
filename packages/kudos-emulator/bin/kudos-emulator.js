#!/usr/bin/env node
// The `kudos-emulator` command: the built CLI. A file of its own, kept in git, so that npm links the
// command at install time in a clone of the repository too, where dist/ is built afterwards.
try {
  await import('../dist/esm/cli.js');
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist')) throw error;
  console.error('kudos-emulator: not built yet; run `npm run build` in the repository first');
  process.exit(1);
}
