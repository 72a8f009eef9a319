// NestJS: sign in with Kudos (docs/frameworks.md shows this file, tested as is).
import {
  type ArgumentsHost,
  Catch,
  Controller,
  type ExceptionFilter,
  type ExecutionContext,
  Get,
  Inject,
  Injectable,
  Module,
  Query,
  Redirect,
  Req,
  UnauthorizedException,
  UseFilters,
  UseGuards,
} from '@nestjs/common';
import { AuthGuard, PassportModule, PassportSerializer, PassportStrategy } from '@nestjs/passport';
import type { Request, Response } from 'express';
import { KudosError, type KudosProfile, KudosStrategy, type KudosStrategyOptions } from 'passport-kudos';

export const KUDOS_OPTIONS = Symbol('KUDOS_OPTIONS');

@Injectable()
export class KudosAuthStrategy extends PassportStrategy(KudosStrategy, 'kudos') {
  constructor(@Inject(KUDOS_OPTIONS) options: KudosStrategyOptions) {
    super(options);
  }

  validate(_accessToken: string, _refreshToken: string | undefined, profile: KudosProfile) {
    return { id: profile.id, displayName: profile.displayName };
  }
}

/** Runs the strategy and keeps the user in the session. */
@Injectable()
export class KudosAuthGuard extends AuthGuard('kudos') {
  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const result = (await super.canActivate(context)) as boolean;
    await super.logIn(context.switchToHttp().getRequest());
    return result;
  }

  override handleRequest<TUser>(err: unknown, user: TUser | false, info?: { message?: string }): TUser {
    if (err) throw err; // KudosError: see KudosErrorFilter
    if (!user) throw new UnauthorizedException(info?.message ?? 'Sign-in failed'); // e.g. the user declined
    return user;
  }
}

/** A refusal (or a failed state check) lands on the failure route. */
@Catch(UnauthorizedException)
export class KudosFailureFilter implements ExceptionFilter {
  catch(exception: UnauthorizedException, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    res.redirect(`/auth/failure?message=${encodeURIComponent(exception.message)}`);
  }
}

/** Provider and network problems answer their status and stable code. */
@Catch(KudosError)
export class KudosErrorFilter implements ExceptionFilter {
  catch(error: KudosError, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    res.status(error.status).json({ code: error.code, message: error.message });
  }
}

@Injectable()
export class SessionSerializer extends PassportSerializer {
  serializeUser(user: Express.User, done: (err: Error | null, user: Express.User) => void): void {
    done(null, user);
  }

  deserializeUser(payload: Express.User, done: (err: Error | null, payload: Express.User) => void): void {
    done(null, payload);
  }
}

@Controller()
export class AuthController {
  @Get('auth/kudos')
  @UseGuards(KudosAuthGuard)
  login(): void {
    // the guard redirects to Kudos
  }

  @Get('auth/kudos/callback')
  @UseGuards(KudosAuthGuard)
  @UseFilters(KudosFailureFilter, KudosErrorFilter)
  @Redirect('/me')
  callback(): void {
    // signed in: redirected to /me
  }

  @Get('auth/failure')
  failure(@Query('message') message: string) {
    return { failed: true, message };
  }

  @Get('me')
  me(@Req() req: Request) {
    return req.user ?? null;
  }
}

/** The module, configured with the strategy's options. */
export function kudosAuthModule(options: KudosStrategyOptions) {
  @Module({
    imports: [PassportModule.register({ session: true })],
    controllers: [AuthController],
    providers: [{ provide: KUDOS_OPTIONS, useValue: options }, KudosAuthStrategy, SessionSerializer],
  })
  class KudosAuthModule {}
  return KudosAuthModule;
}
