import { tracingChannel } from 'node:diagnostics_channel';
import { KUDOS_TRACE_CHANNELS, type KudosTraceMessages, type KudosTraceOperation } from '../../src/index.js';

/** One ended operation as a subscriber sees it at `asyncEnd`: its message, and the events seen. */
export interface RecordedOperation<O extends KudosTraceOperation = KudosTraceOperation> {
  channel: string;
  message: KudosTraceMessages[O];
  /** The events published for it, in order (start, end, error, asyncStart, asyncEnd). */
  events: string[];
  /** The message as text, error included: what a subscriber could log. */
  text: string;
}

/** What every event of every channel carried, as text (to search for secrets). */
function asText(message: object): string {
  const error = (message as { error?: unknown }).error;
  const errorText =
    error instanceof Error
      ? `${error.name} ${error.message} ${JSON.stringify(error)} ${String(error.cause)}`
      : '';
  return `${JSON.stringify(message, (_, v) => (typeof v === 'bigint' ? v.toString() : v))} ${errorText}`;
}

/**
 * Subscribes to every documented channel by its name (as an APM agent would, without importing
 * passport-kudos), and records each operation when it ends.
 */
export class TraceRecorder {
  readonly ended: RecordedOperation[] = [];
  /** Every event's message as text, as it was at that event. */
  readonly seen: string[] = [];
  private readonly events = new WeakMap<object, string[]>();
  private readonly undo: Array<() => void> = [];

  constructor() {
    for (const name of Object.values(KUDOS_TRACE_CHANNELS)) {
      const channel = tracingChannel(name);
      const note = (event: string) => (message: object) => {
        const list = this.events.get(message) ?? [];
        list.push(event);
        this.events.set(message, list);
        this.seen.push(`${name} ${event} ${asText(message)}`);
        if (event === 'asyncEnd') {
          this.ended.push({
            channel: name,
            message: message as KudosTraceMessages[KudosTraceOperation],
            events: list,
            text: asText(message),
          });
        }
      };
      const subscribers = {
        start: note('start'),
        end: note('end'),
        asyncStart: note('asyncStart'),
        asyncEnd: note('asyncEnd'),
        error: note('error'),
      };
      channel.subscribe(subscribers as never);
      this.undo.push(() => channel.unsubscribe(subscribers as never));
    }
  }

  /** The ended operations of one channel, oldest first. */
  of<O extends KudosTraceOperation>(operation: O): Array<KudosTraceMessages[O]> {
    return this.ended
      .filter((e) => e.channel === KUDOS_TRACE_CHANNELS[operation])
      .map((e) => e.message as KudosTraceMessages[O]);
  }

  /** Waits until `operation` has ended `count` times (operations end a tick after their answer). */
  async until(operation: KudosTraceOperation, count = 1): Promise<void> {
    for (let i = 0; i < 6000 && this.of(operation).length < count; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  clear(): void {
    this.ended.length = 0;
    this.seen.length = 0;
  }

  close(): void {
    for (const step of this.undo.splice(0)) step();
  }
}
