import type { KudosTokenSet } from './token-set.js';

/** Where an app keeps each user's token set. Implement it over your database; may be async. */
export interface KudosTokenStore {
  get(userId: string): Promise<KudosTokenSet | undefined> | KudosTokenSet | undefined;
  set(userId: string, tokens: KudosTokenSet): Promise<void> | void;
}

/** A token store in memory: for one process, tests and examples. */
export class MemoryTokenStore implements KudosTokenStore {
  private readonly sets = new Map<string, KudosTokenSet>();

  async get(userId: string): Promise<KudosTokenSet | undefined> {
    return this.sets.get(userId);
  }

  async set(userId: string, tokens: KudosTokenSet): Promise<void> {
    this.sets.set(userId, tokens);
  }

  /** Forgets a user's tokens (e.g. at logout). */
  async delete(userId: string): Promise<void> {
    this.sets.delete(userId);
  }
}
