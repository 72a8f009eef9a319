import { type KudosEmulator, type KudosEmulatorOptions, startKudosEmulator } from 'kudos-emulator';
import { afterEach } from 'vitest';
import { startWebhookSink, type WebhookSink } from './webhook-sink.js';

/**
 * An emulator per test of a describe block, and the webhook sink a test gave it: both closed after
 * each test. `defaults` are the block's options (given the sink, when `withSink` starts one first).
 */
export class EmulatorEach {
  kudos: KudosEmulator | undefined;
  sink: WebhookSink | undefined;

  constructor(
    private readonly defaults: (sink: WebhookSink | undefined) => KudosEmulatorOptions,
    private readonly withSink = false,
  ) {
    afterEach(async () => {
      await this.kudos?.close();
      await this.sink?.close();
      this.kudos = undefined;
      this.sink = undefined;
    });
  }

  /** Starts this test's emulator with the block's options, `options` on top. */
  async start(options: KudosEmulatorOptions = {}): Promise<KudosEmulator> {
    if (this.withSink) this.sink = await startWebhookSink();
    this.kudos = await startKudosEmulator({ ...this.defaults(this.sink), ...options });
    return this.kudos;
  }
}
