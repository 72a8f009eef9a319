import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Ctx, parseCookies, sendCode } from './http.js';
import { sendExpressNotFound } from './removed-routes.js';
import type { EmulatorRoute } from './route-table.js';

/** A route handler; may be async. */
type Handler = (ctx: Ctx) => void | Promise<void>;

interface Route {
  method: string;
  pattern: RegExp;
  handler: Handler;
  route: EmulatorRoute;
}

/** Told of each request that reached a route: the route, the request, and how long it took. */
type RoutedListener = (route: EmulatorRoute, ctx: Ctx, ms: number) => void;

/** A minimal method + path router. Unknown paths answer Express's 404 page, known paths with another method 405. */
export class Router {
  private readonly routes: Route[] = [];

  /** `routed` is told of each routed request once it was answered (the `verbose` log). */
  constructor(private readonly routed: RoutedListener = () => undefined) {}

  /**
   * Adds a route of the route table: its exact path, or its pattern whose groups become
   * `ctx.params`. Only routes of the table can be added, so the table lists them all.
   */
  on(route: EmulatorRoute, handler: Handler): this {
    const pattern = route.pattern ?? pathPattern(route.path);
    this.routes.push({ method: route.method, pattern, handler, route });
    return this;
  }

  /** The routes added so far, as the table has them. */
  added(): EmulatorRoute[] {
    return this.routes.map((r) => r.route);
  }

  /** Handles one request; never throws: an unexpected failure answers 500 `INTERNAL_ERROR`. */
  async handle(req: IncomingMessage, res: ServerResponse, onError: (error: unknown) => void): Promise<void> {
    if (!URL.canParse(req.url ?? '/', 'http://emulator.invalid')) return sendCode(res, 400, 'BAD_REQUEST');
    const url = new URL(req.url ?? '/', 'http://emulator.invalid');
    const method = req.method ?? 'GET';
    const matching = this.routes.filter((r) => r.pattern.test(url.pathname));
    const route = matching.find((r) => r.method === method || (method === 'HEAD' && r.method === 'GET'));
    if (!route) {
      // The service's API is an Express app with no 404 handler of its own: Express's page answers.
      if (matching.length === 0) sendExpressNotFound(res, method, url.pathname);
      else {
        res.setHeader('allow', [...new Set(matching.map((r) => r.method))].join(', '));
        sendCode(res, 405, 'METHOD_NOT_ALLOWED');
      }
      return;
    }
    const params = (route.pattern.exec(url.pathname) ?? []).slice(1);
    const ctx: Ctx = { req, res, url, method, cookies: parseCookies(req.headers.cookie), params };
    const started = performance.now();
    try {
      await route.handler(ctx);
    } catch (error) {
      onError(error);
      if (!res.headersSent) sendCode(res, 500, 'INTERNAL_ERROR');
      else res.destroy();
    }
    this.routed(route.route, ctx, performance.now() - started);
  }
}

/** `path` as a pattern: literal, except that each `{name}` is one path segment (a group). */
function pathPattern(path: string): RegExp {
  const literal = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
  return new RegExp(`^${literal.replace(/\{\w+\}/g, '([^/]+)')}$`);
}
