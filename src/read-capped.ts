import { Readable } from 'node:stream';

/** A body was larger than the cap. */
export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`body is larger than ${limit} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

/**
 * Reads a body, never more than `limit` bytes of it: a Node stream (a request, or a response of
 * node:http) or a web stream (a fetch response body). Past the cap, `reject` throws
 * {@link BodyTooLargeError} (a Node stream is drained, not destroyed, so a server can still answer
 * on the connection), and `truncate` keeps the first `limit` bytes and stops reading (the stream is
 * destroyed or cancelled). A stream that fails or is cut off rejects with its own error.
 */
export async function readCapped(
  source: Readable | ReadableStream<Uint8Array>,
  limit: number,
  overflow: 'reject' | 'truncate',
): Promise<Buffer> {
  const node = source instanceof Readable ? source : undefined;
  const chunks: Uint8Array[] = [];
  let size = 0;
  const iterable = node ? node.iterator({ destroyOnReturn: false }) : (source as ReadableStream<Uint8Array>);
  for await (const chunk of iterable as AsyncIterable<Uint8Array>) {
    const room = limit - size;
    if (chunk.length > room) {
      if (overflow === 'reject') {
        node?.resume(); // drain the rest so the answer can be sent on this connection
        throw new BodyTooLargeError(limit);
      }
      chunks.push(chunk.subarray(0, room));
      size = limit;
      node?.destroy();
      break; // a web stream is cancelled when the loop is left
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return Buffer.concat(chunks);
}
