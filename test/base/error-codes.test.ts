import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KUDOS_ERROR_CODES } from '../../src/index.js';
import { WEBHOOK_ERROR_STATUS } from '../../src/webhook/errors.js';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'emulator' ? [] : sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

describe('KUDOS_ERROR_CODES', () => {
  const codes = new Set<string>(KUDOS_ERROR_CODES.map((row) => row.code));

  it('lists each code once, with a status and a meaning', () => {
    expect(codes.size).toBe(KUDOS_ERROR_CODES.length);
    for (const row of KUDOS_ERROR_CODES) {
      expect(row.meaning.length).toBeGreaterThan(10);
      expect(row.status === 'as answered' || (row.status >= 400 && row.status < 600)).toBe(true);
    }
  });

  it('holds every code the library code gives (found in the source, outside the emulator)', () => {
    const given = new Set<string>();
    for (const file of sources('src')) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/\bcode: '([A-Za-z_]+)'/g)) given.add(m[1] as string);
      for (const m of text.matchAll(/new Kudos(?:Api|Webhook)Error\(\s*'([A-Za-z_]+)'/g))
        given.add(m[1] as string);
    }
    expect(given.size).toBeGreaterThan(15);
    for (const code of given) expect(codes, `${code} is given but not in KUDOS_ERROR_CODES`).toContain(code);
  });

  it('is where the webhook receiver takes its statuses from', () => {
    for (const [code, status] of Object.entries(WEBHOOK_ERROR_STATUS)) {
      expect(KUDOS_ERROR_CODES.find((row) => row.code === code)).toMatchObject({
        status,
        error: 'KudosWebhookError',
      });
    }
    expect(Object.keys(WEBHOOK_ERROR_STATUS)).toHaveLength(
      KUDOS_ERROR_CODES.filter((row) => row.error === 'KudosWebhookError').length,
    );
  });
});
