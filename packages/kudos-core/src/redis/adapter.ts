/**
 * How the Kudos packages send a Redis command: the stores build on this alone. An app with a client
 * the package does not know passes its own (for example over a proxy or a test double).
 */
export interface KudosRedisAdapter {
  /**
   * Sends one command and resolves its raw reply. `key` is the first key the command touches
   * (cluster clients route by it; every key of one command shares its hash slot), undefined when
   * it touches none.
   */
  send(args: string[], key: string | undefined): Promise<unknown>;
  /**
   * Told when a command failed or got no answer in time: a cluster client that finds a new master
   * only when a node redirects it reads the slot map again here. Optional.
   */
  unavailable?(): void;
  /**
   * Sends `args` to every master of a cluster and answers each one's reply with its address, for the
   * start-up checks that must hold on every node (the eviction policy). Optional: without it, the
   * command is sent once, to the one server.
   */
  eachMaster?(args: string[]): Promise<Array<{ node: string; reply: unknown }>>;
  /**
   * The masters of a cluster as the client knows them now (their addresses, in any stable order),
   * read locally: a change (a replica promoted, a node added) has the eviction policy read again
   * at once. Optional.
   */
  masters?(): string;
  /** Where the server is (`host:port`, never a credential), for messages. Optional. */
  readonly server?: string;
}

/**
 * What the Redis stores accept: a connected node-redis client, cluster or sentinel
 * (`createClient`, `createCluster`, `createSentinel`, v4 or newer), an ioredis `Redis` (standalone
 * or sentinel) or `Cluster`, or a {@link KudosRedisAdapter}. Connections are the app's:
 * the Kudos packages never open or close one.
 */
export type KudosRedisClient =
  | KudosRedisAdapter
  | { sendCommand(...args: never[]): unknown }
  | { call(...args: never[]): unknown };
