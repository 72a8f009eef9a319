// The Kudos emulator as a benchmark target: issues CODES authorization codes up front (written to
// CODES_FILE), then prints "ready <port>".
import { writeFileSync } from 'node:fs';
import { startKudosEmulator } from 'kudos-emulator';

const kudos = await startKudosEmulator({
  clients: [{ clientID: 'bench', clientSecret: 'bench-secret', redirectURIs: ['http://127.0.0.1/cb'] }],
  users: [{ id: 'alice', password: 'wonderland' }],
});
const codes = Array.from(
  { length: Number(process.env.CODES) },
  () => kudos.authorize({ user: 'alice' }).code,
);
writeFileSync(process.env.CODES_FILE, JSON.stringify(codes));
process.once('SIGTERM', () => void kudos.close().then(() => process.exit(0)));
console.log(`ready ${kudos.port}`);
