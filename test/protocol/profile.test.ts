import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { KudosTokenError, parseProfile } from '../../src/index.js';
import { expectedProfile } from '../helpers/token-server.js';

function fixture(name: string): unknown {
  return JSON.parse(
    readFileSync(new URL(`../fixtures/token-responses/${name}.json`, import.meta.url), 'utf8'),
  );
}

describe('parseProfile', () => {
  it('maps a full token response to the Passport profile, without tokens', () => {
    const json = fixture('full') as Record<string, string>;
    expect(parseProfile(json)).toEqual(expectedProfile(json));
    expect(parseProfile(json).id).toBe('alice-example');
    expect(JSON.stringify(parseProfile(json))).not.toContain(json.access_token);
    expect(JSON.stringify(parseProfile(json))).not.toContain(json.refresh_token);
  });

  it('has no photos when there is no avatar', () => {
    const profile = parseProfile(fixture('no-avatar'));
    expect(profile.photos).toBeUndefined();
    expect(profile._json).toEqual({ user: 'bob-example', displayName: 'Bob' });
  });

  it('has no photos when the avatar is an empty string', () => {
    expect(parseProfile(fixture('empty-avatar')).photos).toBeUndefined();
  });

  it('falls back to the user ID as displayName', () => {
    expect(parseProfile(fixture('no-display-name')).displayName).toBe('carol-example');
  });

  it('ignores extra fields and never lets __proto__ reach the profile', () => {
    const profile = parseProfile(fixture('extra-fields'));
    expect(profile._json).toEqual({ user: 'dave-example', displayName: 'Dave' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    ['missing-user', 'token response "user" must be a non-empty string'],
    ['user-number', 'token response "user" must be a non-empty string'],
    ['empty-access-token', 'token response "access_token" must be a non-empty string'],
    ['avatar-object', 'token response "avatar" must be a string when present'],
    ['display-name-null', 'token response "displayName" must be a string when present'],
    ['refresh-token-number', 'token response "refresh_token" must be a string when present'],
    ['array', 'token response must be a JSON object'],
  ])('rejects %s with invalid_token_response naming the field', (name, message) => {
    const attempt = () => parseProfile(fixture(name));
    expect(attempt).toThrow(KudosTokenError);
    expect(attempt).toThrow(message);
    try {
      attempt();
    } catch (error) {
      expect(error).toMatchObject({ code: 'invalid_token_response', status: 502, name: 'KudosTokenError' });
    }
  });
});
