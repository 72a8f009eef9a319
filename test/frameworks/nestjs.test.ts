import { frameworkLoginSuite } from './login-suite.js';
import { bootstrap } from './nestjs/main.js';

frameworkLoginSuite(
  'NestJS (Express platform) with PassportStrategy(KudosStrategy, "kudos")',
  async (options) => {
    const app = await bootstrap(options, 'nest-session-secret-of-32-characters-at-least', 0);
    return { url: (await app.getUrl()).replace('[::1]', '127.0.0.1'), close: () => app.close() };
  },
  { failed: true, message: 'You declined to sign in with Kudos.' },
);
