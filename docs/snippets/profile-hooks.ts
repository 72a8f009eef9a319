// passport-oauth2's profile hooks on KudosStrategy (TypeScript, strict).
import { type KudosProfile, KudosStrategy } from 'passport-kudos';

const options = {
  clientID: 'kudos-demo-client',
  clientSecret: 'kudos-demo-secret',
  callbackURL: 'http://localhost:3000/auth/kudos/callback',
  authURL: 'http://127.0.0.1:4000',
  baseURL: 'http://127.0.0.1:4000/api',
};

// 1. fetchProfile: the profile comes from GET {baseURL}/users/profile (one more request per sign-in),
//    with the wallet addresses in _json and, with the email scope, Passport's `emails`.
new KudosStrategy(
  { ...options, scope: ['profile', 'email'], fetchProfile: true },
  (_at, _rt, profile, done) => {
    console.log(profile.emails?.[0]?.value, profile._json.cosmosWallet);
    done(null, { id: profile.id, name: profile.displayName });
  },
);

// 2. A userProfile() override, as with any passport-oauth2 strategy: it gets the access token, and
//    super.userProfile() answers the Kudos profile (of the token response, no request).
class ShopKudosStrategy extends KudosStrategy {
  override userProfile(accessToken: string, done: (err?: unknown, profile?: unknown) => void): void {
    super.userProfile(accessToken, (err, profile) => {
      if (err) return done(err);
      done(null, { ...(profile as KudosProfile), loyalty: 'gold' });
    });
  }
}
new ShopKudosStrategy(options, (_at, _rt, profile, done) =>
  done(null, { id: profile.id, name: profile.displayName }),
);

// 3. skipUserProfile (boolean, sync, callback or async function): userProfile() is not called, and
//    verify still gets the Kudos profile of the token response.
new ShopKudosStrategy({ ...options, skipUserProfile: async () => true }, (_at, _rt, profile, done) =>
  done(null, { id: profile.id, name: profile.displayName }),
);
