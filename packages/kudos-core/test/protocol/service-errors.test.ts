import { describe, expect, it } from 'vitest';
import { readServiceError } from '../../src/protocol/service-errors.js';

describe('readServiceError: one rule for the token endpoint and the API', () => {
  it.each([
    ['INVALID_CLIENT_CRED', { code: 'INVALID_CLIENT_CRED' }],
    ['  TOKEN_EXPIRED\n', { code: 'TOKEN_EXPIRED' }],
    ['{"error":"invalid_grant"}', { code: 'invalid_grant' }],
    ['{"error":"invalid_client","error_description":"bad"}', { code: 'invalid_client', description: 'bad' }],
  ])('reads %j', (body, expected) => {
    expect(readServiceError(body)).toEqual(expected);
  });

  it.each([
    ['invalid_grant'], // plain text must be the service's upper-case word
    ['X'], // one letter is no code
    ['<html>500</html>'],
    ['{"error":"<img>"}'],
    ['{"error":"1abc"}'],
    ['{"error":42}'],
    ['[1,2]'],
    [''],
  ])('finds no code in %j', (body) => {
    expect(readServiceError(body)).toBeUndefined();
  });
});
