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
  return source instanceof Readable ? readNode(source, limit, overflow) : readWeb(source, limit, overflow);
}

/** A Node stream, read with its events (cheaper than async iteration on a hot path). */
function readNode(source: Readable, limit: number, overflow: 'reject' | 'truncate'): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    readStream(source, limit, overflow, (error, body) => (error ? reject(error) : resolve(body as Buffer))),
  );
}

/**
 * {@link readCapped} of a Node stream, with a callback: the HTTP client's hot path (a token request)
 * reads its answer without a promise of its own. `done` is called once, with the error or the body.
 */
export function readStream(
  source: Readable,
  limit: number,
  overflow: 'reject' | 'truncate',
  done: (error: Error | undefined, body?: Buffer) => void,
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  const finish = (error?: Error) => {
    source.off('data', onData);
    source.off('end', onEnd);
    source.off('error', onError);
    source.off('close', onClose);
    if (error) done(error);
    // One chunk (a token response) is the body as it is: no copy.
    else done(undefined, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
  };
  const onData = (chunk: Buffer) => {
    const room = limit - size;
    if (chunk.length <= room) {
      chunks.push(chunk);
      size += chunk.length;
      return;
    }
    if (overflow === 'reject') {
      source.resume(); // drain the rest so the answer can be sent on this connection
      return finish(new BodyTooLargeError(limit));
    }
    chunks.push(chunk.subarray(0, room));
    size = limit;
    source.destroy();
    finish();
  };
  const onEnd = () => finish();
  const onError = (error: Error) => finish(error);
  // A stream destroyed before its end (a client that went away) is cut off, not complete.
  const onClose = () => finish(new Error('the body was cut off before its end'));
  source.on('data', onData);
  source.once('end', onEnd);
  source.once('error', onError);
  source.once('close', onClose);
}

/** A web stream, read chunk by chunk; past the cap in `truncate` mode it is cancelled. */
async function readWeb(
  source: ReadableStream<Uint8Array>,
  limit: number,
  overflow: 'reject' | 'truncate',
): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of source as unknown as AsyncIterable<Uint8Array>) {
    const room = limit - size;
    if (chunk.length > room) {
      if (overflow === 'reject') throw new BodyTooLargeError(limit);
      chunks.push(chunk.subarray(0, room));
      size = limit;
      break; // leaving the loop cancels the stream
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return Buffer.concat(chunks, size);
}
