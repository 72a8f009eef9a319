import { MIN_WEBHOOK_SECRET_LENGTH, redactWebhookURL } from 'kudos-core';
import { MAIN_PREFIX } from 'kudos-core/chain';
import { isRecord, sameSecret } from '../checks.js';
import { MAX_CLOCK_OFFSET_MS } from '../clock.js';
import { type EmulatorAgent, isHttpURL } from '../emulator-options.js';
import { parseDuration } from '../model/duration.js';
import { walletAddress } from '../model/ids.js';
import type { EmulatorOperations, PayArguments } from '../model/operations.js';
import { AdminError, checkAccess } from '../server/admin-access.js';
import { foreignOrigin } from '../server/host-check.js';
import { type Ctx, mediaType, readBody, readForm, sendJson } from '../server/http.js';
import { ROUTES } from '../server/route-table.js';
import type { Router } from '../server/router.js';
import type { EmulatorState } from '../state.js';
import type { EmulatorTransaction, FinalTxStatus } from '../transaction.js';
import type { HomeState } from '../views/home-page.js';
import type { WebhookDelivery, WebhookSender } from '../webhook-sender.js';

const bad = (field: string, message: string) =>
  new AdminError(400, 'invalid_field', `"${field}" ${message}`, field);

/** A browser request to the admin API must come from the emulator's own pages (when it says). */
function checkOrigin(state: EmulatorState, ctx: Ctx): void {
  if (foreignOrigin(ctx.req, state)) {
    throw new AdminError(403, 'foreign_origin', 'the admin API does not take requests from other sites');
  }
}

/**
 * Changes come as `application/json`, which a page of another site cannot send without a preflight
 * the emulator refuses (a `text/plain` body or a form can be sent blind). The one exception is the
 * home page's Resend button: a form carrying the home page's token.
 */
async function checkChange(state: EmulatorState, ctx: Ctx, formAllowed: boolean): Promise<void> {
  const type = mediaType(ctx.req);
  if (type === 'application/json') return;
  if (formAllowed && type === 'application/x-www-form-urlencoded') {
    const form = await readForm(ctx.req);
    const given = form?.get('csrf') ?? '';
    if (sameSecret(given, state.adminCsrf)) return;
    throw new AdminError(403, 'csrf_token_invalid', 'the form is not from the emulator home page; reload it');
  }
  throw new AdminError(415, 'json_only', 'the admin API takes changes as application/json');
}

async function readJsonObject(ctx: Ctx): Promise<Record<string, unknown>> {
  let body: Buffer;
  try {
    body = await readBody(ctx.req);
  } catch {
    throw new AdminError(400, 'invalid_body', 'the request body could not be read (at most 64 kB)');
  }
  if (body.length === 0) return {};
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    throw new AdminError(400, 'invalid_json', 'the request body is not JSON');
  }
  if (!isRecord(json)) throw new AdminError(400, 'invalid_json', 'the request body must be a JSON object');
  return json;
}

function text(body: Record<string, unknown>, field: string, required = false): string | undefined {
  const value = body[field];
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string' || value === '') throw bad(field, 'must be a non-empty string');
  return value;
}

/** An optional boolean field: false when absent, else it must be true or false. */
function flag(body: Record<string, unknown>, field: string): boolean {
  const value = body[field];
  if (value !== undefined && typeof value !== 'boolean') throw bad(field, 'must be true or false');
  return value === true;
}

function textOrList(body: Record<string, unknown>, field: string): string | string[] {
  const value = body[field];
  if (typeof value === 'string' && value !== '') return value;
  if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string' && v !== ''))
    return value;
  throw bad(field, 'must be a non-empty string or array of strings');
}

/** A transaction as the admin API and the CLI show it. */
function transactionJson(tx: EmulatorTransaction): Record<string, unknown> {
  const { request } = tx;
  return {
    txHash: tx.txHash,
    status: tx.status,
    from: request.from,
    to: request.to,
    amounts: request.amounts,
    via: request.via,
    fee: request.fee,
    remarks: request.remarks,
    ts: new Date(tx.ts).toISOString(),
    completeTs: new Date(tx.completeTs).toISOString(),
    height: tx.height,
    metadataPosted: tx.metadataPosted !== false,
  };
}

/** A delivery as the admin API and the CLI show it: no body, no secret. */
function deliveryJson(d: WebhookDelivery): Record<string, unknown> {
  return {
    id: d.id,
    at: new Date(d.at).toISOString(),
    agent: d.agentId,
    url: d.url,
    txHash: d.txHash,
    status: d.txStatus,
    answer: d.responseStatus ?? d.error ?? null,
    attempt: d.attempt,
  };
}

/** Everything the home page and `GET /_emulator/state` show. */
export function stateJson(
  state: EmulatorState,
  webhooks: WebhookSender,
): HomeState & { clockOffsetMs: number } {
  return {
    authURL: state.authURL,
    baseURL: state.baseURL,
    now: new Date(state.clock.now()).toISOString(),
    clockOffsetMs: state.clock.offset,
    clients: [...state.clients.values()].map((c) => ({
      clientID: c.clientID,
      name: c.name,
      redirectURIs: c.redirectURIs,
    })),
    users: [...state.users.values()].map((u) => ({
      id: u.id,
      displayName: u.displayName ?? u.id,
      wallet: walletAddress(u.id),
      kudosWallet: walletAddress(u.id, MAIN_PREFIX),
    })),
    agents: [...state.agents.values()].map((a) => ({
      id: a.id,
      wallet: walletAddress(a.id),
      kudosWallet: walletAddress(a.id, MAIN_PREFIX),
      webhookURL: a.webhookURL ? redactWebhookURL(a.webhookURL, MIN_WEBHOOK_SECRET_LENGTH) : null,
      paymentRedirectURIs: a.paymentRedirectURIs ?? [],
      // Forwarding (kudos-emulator listen) while its lease holds: where, and until when.
      forwarding:
        a.forwardURL && (a.forwardUntil ?? 0) > Date.now()
          ? {
              url: redactWebhookURL(a.forwardURL, MIN_WEBHOOK_SECRET_LENGTH),
              until: new Date(a.forwardUntil ?? 0).toISOString(),
            }
          : null,
    })),
    transactions: state.recentTransactions(50).map(transactionJson),
    deliveries: webhooks.deliveries.slice(-50).reverse().map(deliveryJson),
  };
}

const OUTCOMES: readonly FinalTxStatus[] = ['success', 'fail', 'timeout'];

/** How long a forward holds unless `listen` renews it (it renews every 5 s). */
const FORWARD_LEASE_MS = 15_000;
/** The longest forward lease one request may ask for: an hour. */
const MAX_FORWARD_LEASE_MS = 3_600_000;

/** What the admin handlers work with. */
interface Admin {
  state: EmulatorState;
  ops: EmulatorOperations;
  webhooks: WebhookSender;
}

/** An admin answer: a status (default 200) and a JSON body. */
type AdminAnswer = { status?: number; body: unknown };

/** `POST /_emulator/payments`: a payment exactly as the widget makes it; answers once it settled. */
async function pay({ state, ops }: Admin, ctx: Ctx): Promise<AdminAnswer> {
  const body = await readJsonObject(ctx);
  const to = textOrList(body, 'to');
  const amount = textOrList(body, 'amount');
  const receivers = [to].flat();
  const from = text(body, 'from') ?? [...state.users.keys()].find((id) => !receivers.includes(id));
  if (!from) throw bad('from', 'is needed: no other user to pay from');
  const status = text(body, 'status') ?? 'success';
  if (!OUTCOMES.includes(status as FinalTxStatus)) throw bad('status', 'must be success, fail or timeout');
  const args: PayArguments = { from, to, amount, outcome: status as FinalTxStatus };
  // Absent: the metadata is posted, as by a browser that works.
  if (body.metadataPosted !== undefined) args.metadataPosted = flag(body, 'metadataPosted');
  for (const field of ['via', 'fee', 'remarks', 'state'] as const) {
    const value = text(body, field);
    if (value !== undefined) args[field] = value;
  }
  let tx: EmulatorTransaction;
  try {
    tx = ops.pay(args);
  } catch (error) {
    throw new AdminError(400, 'invalid_payment', (error as Error).message);
  }
  await tx.settled;
  return { status: 201, body: transactionJson(tx) };
}

/** `POST /_emulator/deliveries/{id}/resend`: JSON for the CLI, a redirect home for the page's button. */
async function resend({ webhooks }: Admin, ctx: Ctx): Promise<AdminAnswer> {
  const id = Number(ctx.params[0]);
  if (!Number.isSafeInteger(id) || !webhooks.resend(id)) {
    throw new AdminError(
      404,
      'unknown_delivery',
      `no delivery ${ctx.params[0]} (or its agent has no webhook now)`,
    );
  }
  if (ctx.req.headers['content-type']?.startsWith('application/x-www-form-urlencoded')) {
    ctx.res.writeHead(303, { location: '/' });
    ctx.res.end();
    return { body: null };
  }
  return { status: 202, body: { resent: id } };
}

/** `POST /_emulator/clock/advance`. */
async function advanceClock({ state, ops }: Admin, ctx: Ctx): Promise<AdminAnswer> {
  const given = text(await readJsonObject(ctx), 'advance', true) as string;
  const ms = parseDuration(given);
  if (ms === undefined) throw bad('advance', 'must be a duration such as 90s, 61m or 1h');
  if (state.clock.offset + ms > MAX_CLOCK_OFFSET_MS) {
    throw bad('advance', 'moves the clock too far: at most 100 years in all');
  }
  ops.advanceClock(ms);
  return { body: { now: new Date(state.clock.now()).toISOString(), clockOffsetMs: state.clock.offset } };
}

/**
 * `POST /_emulator/agents`: adds an agent (`webhookURL`, `paymentRedirectURIs`), or, with
 * `update: true`, changes one that exists: its webhook (`null` removes it), its whitelist (replaced,
 * or extended by `addPaymentRedirectURIs`), or `forwardTo` (`kudos-emulator listen`). Nothing is
 * replaced by surprise: adding an agent that exists is 409 `already_exists`, changing one that does
 * not is 404 `unknown_agent` (a typo does not create an agent).
 */
async function setAgent({ state }: Admin, ctx: Ctx): Promise<AdminAnswer> {
  const body = await readJsonObject(ctx);
  const id = text(body, 'id', true) as string;
  const existing = state.agents.get(id);
  const update = flag(body, 'update');
  if (update && !existing) throw new AdminError(404, 'unknown_agent', `no agent "${id}" to change`, 'id');
  if (!update && existing) {
    throw new AdminError(
      409,
      'already_exists',
      `agent "${id}" exists: pass "update": true to change it (kudos-emulator agents add --update, agents add-redirect, agents set-webhook)`,
      'id',
    );
  }
  const agent: EmulatorAgent = { ...existing, id };
  if (body.webhookURL === null) delete agent.webhookURL;
  else if (body.webhookURL !== undefined) {
    const url = text(body, 'webhookURL') as string;
    if (!isHttpURL(url)) throw bad('webhookURL', 'must be an absolute http(s) URL');
    agent.webhookURL = url;
  }
  // `forwardTo` (kudos-emulator listen): deliveries go there for `forwardForMs` (a lease listen
  // renews; default 15 s), so a killed listen does not forward for ever; null ends it.
  if (body.forwardTo === null) {
    delete agent.forwardURL;
    delete agent.forwardUntil;
  } else if (body.forwardTo !== undefined) {
    const url = text(body, 'forwardTo') as string;
    if (!isHttpURL(url)) throw bad('forwardTo', 'must be an absolute http(s) URL');
    const lease = body.forwardForMs ?? FORWARD_LEASE_MS;
    if (
      typeof lease !== 'number' ||
      !Number.isSafeInteger(lease) ||
      lease < 1 ||
      lease > MAX_FORWARD_LEASE_MS
    )
      throw bad('forwardForMs', `must be 1 to ${MAX_FORWARD_LEASE_MS} milliseconds`);
    agent.forwardURL = url;
    agent.forwardUntil = Date.now() + lease;
  }
  for (const name of ['paymentRedirectURIs', 'addPaymentRedirectURIs'] as const) {
    const uris = body[name];
    if (uris === undefined) continue;
    if (!Array.isArray(uris) || !uris.every((u) => typeof u === 'string' && URL.canParse(u))) {
      throw bad(name, 'must be an array of absolute URLs');
    }
    agent.paymentRedirectURIs =
      name === 'paymentRedirectURIs'
        ? [...uris]
        : [...new Set([...(agent.paymentRedirectURIs ?? []), ...uris])];
  }
  state.agents.set(id, agent);
  state.changed();
  const shown = {
    id,
    webhookURL: agent.webhookURL ? redactWebhookURL(agent.webhookURL, MIN_WEBHOOK_SECRET_LENGTH) : null,
    paymentRedirectURIs: agent.paymentRedirectURIs ?? [],
  };
  return { status: existing ? 200 : 201, body: shown };
}

/**
 * `POST /_emulator/users`: adds a user; one that exists is 409 `already_exists` unless
 * `update: true` (which replaces its password and display name).
 */
async function addUser({ state, ops }: Admin, ctx: Ctx): Promise<AdminAnswer> {
  const body = await readJsonObject(ctx);
  const user = { id: text(body, 'id', true) as string, password: text(body, 'password', true) as string };
  const displayName = text(body, 'displayName');
  const update = flag(body, 'update');
  const existing = state.users.get(user.id);
  if (existing && !update) {
    throw new AdminError(
      409,
      'already_exists',
      `user "${user.id}" exists: pass "update": true to replace its password (kudos-emulator users add --update)`,
      'id',
    );
  }
  try {
    const added = ops.addUser({ ...existing, ...user, ...(displayName ? { displayName } : {}) }, '');
    return {
      status: existing ? 200 : 201,
      body: { id: added.id, displayName: added.displayName ?? added.id, wallet: walletAddress(added.id) },
    };
  } catch (error) {
    throw new AdminError(400, 'invalid_field', (error as Error).message, 'id');
  }
}

/**
 * `POST /_emulator/clients`: adds a client; one that exists is 409 `already_exists` unless
 * `update: true` (which replaces its secret and redirect URI), as for users and agents.
 */
async function addClient({ state, ops }: Admin, ctx: Ctx): Promise<AdminAnswer> {
  const body = await readJsonObject(ctx);
  const clientID = text(body, 'clientID', true) as string;
  const clientSecret = text(body, 'clientSecret', true) as string;
  const redirectURI = text(body, 'redirectURI', true) as string;
  // Where the authorization page sends the browser: http(s) only (a `javascript:` URI would run).
  if (!isHttpURL(redirectURI)) {
    throw bad('redirectURI', 'must be an absolute http(s) URL');
  }
  const existing = state.clients.get(clientID);
  if (existing && !flag(body, 'update')) {
    throw new AdminError(
      409,
      'already_exists',
      `client "${clientID}" exists: pass "update": true to replace its secret and redirect URI (kudos-emulator clients add --update)`,
      'clientID',
    );
  }
  let added: ReturnType<typeof ops.addClient>;
  try {
    added = ops.addClient({
      clientID,
      clientSecret,
      name: text(body, 'name') ?? clientID,
      redirectURIs: [redirectURI],
    });
  } catch {
    throw bad('redirectURI', 'must be an absolute http(s) URL');
  }
  return {
    status: existing ? 200 : 201,
    body: { clientID: added.clientID, redirectURIs: added.redirectURIs },
  };
}

/** The admin API under `/_emulator/`: JSON in, JSON out; bad input is 400 naming the field. */
export function adminRoutes(
  router: Router,
  state: EmulatorState,
  ops: EmulatorOperations,
  webhooks: WebhookSender,
): void {
  const deps: Admin = { state, ops, webhooks };
  const admin =
    (handle: (deps: Admin, ctx: Ctx) => Promise<AdminAnswer>, formAllowed = false) =>
    async (ctx: Ctx) => {
      try {
        checkAccess(state, ctx);
        checkOrigin(state, ctx);
        if (ctx.method !== 'GET' && ctx.method !== 'HEAD') await checkChange(state, ctx, formAllowed);
        const { status = 200, body } = await handle(deps, ctx);
        if (!ctx.res.headersSent) sendJson(ctx.res, status, body);
      } catch (error) {
        if (!(error instanceof AdminError)) throw error;
        sendJson(ctx.res, error.status, {
          error: error.message,
          code: error.code,
          ...(error.field ? { field: error.field } : {}),
        });
      }
    };
  router.on(
    ROUTES.adminState,
    admin(async () => ({ body: stateJson(state, webhooks) })),
  );
  router.on(
    ROUTES.adminDeliveries,
    // `?body=1` adds each delivery's notification body (no secret is in it): for `listen --print-body`.
    admin(async (_deps, ctx) => {
      const withBody = ctx.url.searchParams.get('body') === '1';
      return {
        body: webhooks.deliveries.map((d) =>
          withBody ? { ...deliveryJson(d), body: JSON.parse(d.body) } : deliveryJson(d),
        ),
      };
    }),
  );
  router.on(ROUTES.adminPay, admin(pay));
  router.on(ROUTES.adminResend, admin(resend, true));
  router.on(ROUTES.adminClock, admin(advanceClock));
  router.on(ROUTES.adminUsers, admin(addUser));
  router.on(ROUTES.adminClients, admin(addClient));
  router.on(ROUTES.adminAgents, admin(setAgent));
}
