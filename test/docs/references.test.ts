import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// The repository explains itself: every reference to the service's description resolves to an
// anchor of docs/kudos-service.md, and nothing points to a path outside the repository.
const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
  encoding: 'utf8',
})
  .split('\n')
  .filter((file) => /\.(ts|mjs|js|md|json)$/.test(file) && file !== 'package-lock.json');
const texts = tracked.map((file) => {
  try {
    return { file, text: readFileSync(file, 'utf8') };
  } catch {
    return { file, text: '' }; // deleted in the working tree
  }
});

describe('references inside the repository', () => {
  const doc = readFileSync('docs/kudos-service.md', 'utf8');
  const anchors = new Set([...doc.matchAll(/<a id="([a-z0-9-]+)"><\/a>/g)].map((m) => m[1]));

  it('every docs/kudos-service.md#anchor names an anchor that exists', () => {
    const missing: string[] = [];
    let count = 0;
    for (const { file, text } of texts.filter((t) => t.file !== 'test/docs/references.test.ts')) {
      for (const m of text.matchAll(/kudos-service\.md#([a-z0-9-]+)/g)) {
        count++;
        if (!anchors.has(m[1])) missing.push(`${file}: #${m[1]}`);
      }
    }
    expect(count).toBeGreaterThan(40);
    expect(missing).toEqual([]);
  });

  it('no file refers to a path outside the repository or to the former spec files', () => {
    const outside = /\.\.\/shared\b|\bfacts\.md\b|\binterface\.md\b|\/work\/main|\/root\//;
    const offenders = texts
      .filter(({ file }) => file !== 'test/docs/references.test.ts')
      .filter(({ text }) => outside.test(text))
      .map(({ file }) => file);
    expect(offenders).toEqual([]);
  });
});

describe('docs/payments.md: the picture of the flow', () => {
  const svg = readFileSync('docs/payment-flow.svg', 'utf8');

  it('is linked from docs/payments.md before the identities, with a text alternative', () => {
    const guide = readFileSync('docs/payments.md', 'utf8');
    const image = /!\[([^\]]{80,})\]\(payment-flow\.svg\)/.exec(guide);
    expect(image).not.toBeNull();
    expect(guide.indexOf('(payment-flow.svg)')).toBeLessThan(guide.indexOf('## Three identities'));
  });

  it('is a standalone SVG (no script, no outside reference) that names every part of the flow', () => {
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]* viewBox="/);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(svg).not.toMatch(/<script|href="http|xlink:href="(?!#)/);
    // Every opened element is closed (a renderer refuses an SVG that is not well-formed XML).
    const opened = [...svg.matchAll(/<([a-z]+)\b[^>]*?(\/)?>/g)].filter((m) => !m[2]).map((m) => m[1]);
    const closed = [...svg.matchAll(/<\/([a-z]+)>/g)].map((m) => m[1]);
    expect(opened.sort()).toEqual(closed.sort());
    for (const part of ['Payer', 'widget', 'Chain', 'Kudos service', 'webhook', 'Return page', 'Reconcile'])
      expect(svg).toContain(part);
  });
});
