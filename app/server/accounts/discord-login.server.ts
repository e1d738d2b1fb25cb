// Optional "Continue with Discord" (OAuth 2 with PKCE and a state the browser keeps). This is the only module
// that knows arctic. A Discord account signs in to the account it is linked to. Discord's word on
// an e-mail address proves nothing to the shop (decision 042): a Discord account that is not linked
// yet opens a registration of its address, which works only once the one who holds the mailbox
// (our link) and that Discord account (signing in with it) confirms it. It never joins an
// existing account by its address: a member links Discord from their Security page, signed in and
// with their password, and is told by e-mail.
import { Discord, generateCodeVerifier, generateState } from "arctic";
import { and, eq, sql } from "drizzle-orm";
import { BRAND } from "~/lib/brand";
import { fail, ok, type Result } from "~/lib/result";
import { audit } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";
import { oauthAccounts, passkeys, profiles } from "../platform/db/schema.server";
import { mailBody } from "../platform/html.server";
import { type MailingDeps, sendMail } from "../platform/mail.server";
import { findByEmail, findById } from "./directory.server";
import { openAccount } from "./open-account.server";
import { verifyPassword } from "./password.server";
import { checkVerificationLink, sendVerification, verifyEmail } from "./registration.server";
import { attemptSucceeded, reserveAttempt, throttled, throttleKeys } from "./throttle.server";
import { refusedDiscord } from "./blocked.server";
import { type Caller, forgetToken, keepToken, type TokenChange } from "../platform/caller.server";

export type DiscordConfig = Pick<Env, "DISCORD_CLIENT_ID" | "DISCORD_CLIENT_SECRET">;

// The round trip's state, PKCE verifier and, when it is not a sign-in, what it is for
// ("link:<account id>", the member who started it, or "confirm", an address with the verification
// link's token) wait in the browser for ten minutes.
const ROUND_TRIP_SECONDS = 10 * 60;
const USER_ENDPOINT = "https://discord.com/api/users/@me";
const ALREADY_LINKED = "A Discord account is linked already: unlink it first.";

export function isDiscordConfigured(config: DiscordConfig): boolean {
  return Boolean(config.DISCORD_CLIENT_ID && config.DISCORD_CLIENT_SECRET);
}

const client = (config: DiscordConfig, origin: string) =>
  new Discord(config.DISCORD_CLIENT_ID, config.DISCORD_CLIENT_SECRET, `${origin}/auth/discord/callback`);

/** What a Discord round trip is for: signing in, linking it to a member, or confirming an address. */
export type DiscordMode = { kind: "sign-in" } | { kind: "link"; userId: string } | { kind: "confirm" };

/** Where to send the browser, and the tokens that tie the callback to this browser and say what it is for. */
export function startDiscordSignIn(
  config: DiscordConfig,
  origin: string,
  mode: DiscordMode = { kind: "sign-in" },
): { url: string; tokens: TokenChange[] } {
  const state = generateState();
  const verifier = generateCodeVerifier();
  // guilds.join: a member linked to the shop is added to its server with their roles (decision 064).
  const url = client(config, origin).createAuthorizationURL(state, verifier, ["identify", "email", "guilds.join"]);
  const value = mode.kind === "link" ? `link:${mode.userId}` : mode.kind === "confirm" ? "confirm" : null;
  const tokens = [
    keepToken("discordState", state, ROUND_TRIP_SECONDS),
    keepToken("discordVerifier", verifier, ROUND_TRIP_SECONDS),
    value ? keepToken("discordMode", value, ROUND_TRIP_SECONDS) : forgetToken("discordMode"),
  ];
  return { url: url.toString(), tokens };
}

/** What the round trip the callback finishes was started for (see `startDiscordSignIn`). */
export function discordModeOf(caller: Caller): DiscordMode {
  const value = caller.tokens.discordMode ?? "";
  if (value === "confirm") return { kind: "confirm" };
  return value.startsWith("link:") ? { kind: "link", userId: value.slice("link:".length) } : { kind: "sign-in" };
}

interface DiscordUser {
  id: string;
  username: string;
  email?: string | null;
  verified?: boolean;
  avatar?: string | null;
}

/** The tokens that tie a callback to its browser, forgotten: the callback uses them once, whatever its outcome. */
export function forgetDiscordRoundTrip(): TokenChange[] {
  return [forgetToken("discordState"), forgetToken("discordVerifier"), forgetToken("discordMode")];
}

/** What Discord sent the browser back with: the authorisation code and the state it was given. */
export interface DiscordCallback {
  code: string | null;
  state: string | null;
}

/** A username not taken yet, made from the Discord one. */
async function freeUsername(db: Db, wanted: string): Promise<string> {
  const base = (wanted.replace(/[^A-Za-z0-9_.-]/g, "").slice(0, 18) || "member").padEnd(3, "0");
  for (let i = 0; i < 20; i++) {
    const candidate = i === 0 ? base : `${base}${Math.floor(Math.random() * 10_000)}`;
    const taken = await db
      .select({ id: profiles.id })
      .from(profiles)
      .where(sql`lower(${profiles.username}) = ${candidate.toLowerCase()}`)
      .get();
    if (!taken) return candidate;
  }
  return `${base}${crypto.randomUUID().slice(0, 6)}`;
}

/** What a Discord sign-in comes to: a session for a linked, confirmed account, or a link to confirm an address. */
export type DiscordSignIn = { kind: "account"; id: string } | { kind: "confirm-email"; email: string };

const linkedAccount = (db: Db, discordId: string) =>
  db
    .select({ userId: oauthAccounts.userId })
    .from(oauthAccounts)
    .where(and(eq(oauthAccounts.provider, "discord"), eq(oauthAccounts.providerUserId, discordId)))
    .get();

async function accountFor(deps: MailingDeps, discordUser: DiscordUser, caller: Caller, now: number): Promise<Result<DiscordSignIn>> {
  const { db } = deps;
  const refused = await refusedDiscord(db, discordUser.id, now);
  if (!refused.ok) return refused;
  const link = await linkedAccount(db, discordUser.id);
  // A registration that lapsed unverified is gone (findById does not find it), and its link with it.
  const linked = link ? await findById(db, link.userId, now) : undefined;
  if (linked?.verifiedAt) return ok({ kind: "account", id: linked.id });
  if (linked) return ok({ kind: "confirm-email", email: linked.email });

  const email = discordUser.email?.trim().toLowerCase();
  if (!email || !discordUser.verified) {
    return fail("forbidden", "Your Discord account has no verified e-mail address. Verify it on Discord, or sign up with e-mail.");
  }
  // Joining an existing account by its address would let whoever convinced Discord of that address
  // into someone else's account: its owner links Discord themselves, signed in.
  const holder = await findByEmail(db, email, now);
  if (holder?.verifiedAt) {
    return fail("conflict", "An account with this e-mail address already exists. Log in to it, then link Discord on your Security page.");
  }
  // A registration of the address that nobody confirmed is replaced, exactly as an e-mail sign-up
  // replaces it; the new one waits for the same confirmation.
  const avatarUrl = discordUser.avatar ? `https://cdn.discordapp.com/avatars/${discordUser.id}/${discordUser.avatar}.png?size=128` : null;
  const username = await freeUsername(db, discordUser.username);
  const opened = await openAccount(
    db,
    { email, username, passwordHash: null, verifiedAt: null, avatarUrl },
    { how: "discord", ip: caller.ip, now },
  );
  if (!opened.ok) return opened;
  await db
    .insert(oauthAccounts)
    .values({
      provider: "discord",
      providerUserId: discordUser.id,
      providerUsername: discordUser.username,
      userId: opened.value.id,
      createdAt: now,
    })
    .onConflictDoNothing();
  await sendVerification(deps, { id: opened.value.id, email, username, createdAt: now }, caller.origin, now);
  return ok({ kind: "confirm-email", email });
}

/** The Discord account the callback's code stands for, once the state proves the callback is this browser's. */
async function discordUserOf(
  config: DiscordConfig,
  caller: Caller,
  { code, state }: DiscordCallback,
): Promise<Result<DiscordUser & { accessToken: string }>> {
  const expectedState = caller.tokens.discordState;
  const verifier = caller.tokens.discordVerifier;
  if (!state || !code || !expectedState || !verifier || state !== expectedState) {
    return fail("unauthenticated", "The sign-in link expired or did not come from this browser. Please try again.");
  }
  try {
    const tokens = await client(config, caller.origin).validateAuthorizationCode(code, verifier);
    const accessToken = tokens.accessToken();
    const response = await fetch(USER_ENDPOINT, { headers: { Authorization: `Bearer ${accessToken}` } });
    if (!response.ok) throw new Error(`Discord answered ${response.status}`);
    return ok({ ...((await response.json()) as DiscordUser), accessToken });
  } catch (error) {
    console.error("Discord sign-in failed:", error);
    return fail("unauthenticated", "Discord did not confirm the sign-in. Please try again.");
  }
}

/**
 * Completes the sign-in Discord sent the browser back with: the linked account to sign in to, or
 * the address whose confirmation link was just mailed. Starting the session (`signInAs`) and
 * forgetting the round trip (`forgetDiscordRoundTrip`) are the edge's.
 */
export async function finishDiscordSignIn(
  deps: MailingDeps,
  config: DiscordConfig,
  caller: Caller,
  callback: DiscordCallback,
  now = Date.now(),
): Promise<Result<DiscordSignIn>> {
  const discordUser = await discordUserOf(config, caller, callback);
  return discordUser.ok ? accountFor(deps, discordUser.value, caller, now) : discordUser;
}

/**
 * Before leaving for Discord to link it: the member proves it is them with their password (when the
 * account has one), so a session left open somewhere is not enough to add a way in. An account
 * links one Discord account at a time.
 */
export async function mayLinkDiscord(db: Db, caller: Caller, userId: string, password: string, now = Date.now()): Promise<Result> {
  if (await linkOf(db, userId)) return fail("conflict", ALREADY_LINKED);
  const account = await findById(db, userId, now);
  if (!account?.passwordHash) return ok();
  const reservation = await reserveAttempt(db, throttleKeys(caller.ip, userId), now);
  if (!reservation.ok) return throttled(reservation.waitMs, "password attempts");
  if (!(await verifyPassword(password, account.passwordHash))) return fail("unauthenticated", "Wrong password", { field: "password" });
  await attemptSucceeded(db, reservation);
  return ok();
}

/** A linked Discord account, and the OAuth access token that may add it to the shop's server once. */
export interface DiscordLink {
  discordId: string;
  accessToken: string;
}

/**
 * Completes a link started on the Security page by `mode.userId`, if that member is still the one
 * signed in: the Discord account becomes a way into their account, audited and e-mailed to them.
 */
export async function finishDiscordLink(
  deps: MailingDeps,
  config: DiscordConfig,
  caller: Caller,
  callback: DiscordCallback,
  userId: string,
  now = Date.now(),
): Promise<Result<DiscordLink>> {
  const discordUser = await discordUserOf(config, caller, callback);
  if (!discordUser.ok) return discordUser;
  const linked = await recordDiscordLink(deps, userId, discordUser.value, caller.ip, now);
  return linked.ok ? ok({ discordId: discordUser.value.id, accessToken: discordUser.value.accessToken }) : linked;
}

/**
 * Links the Discord account `discordUser` to `userId` (who proved it is them first, decision 044),
 * audited and e-mailed to them. The same account linked again is no change. Checked again here,
 * when the round trip comes back: a link started in another browser may have finished meanwhile.
 */
export async function recordDiscordLink(
  deps: MailingDeps,
  userId: string,
  discordUser: Pick<DiscordUser, "id" | "username">,
  ip: string | null,
  now = Date.now(),
): Promise<Result> {
  const { db } = deps;
  const { id: discordId, username } = discordUser;
  const refused = await refusedDiscord(db, discordId, now);
  if (!refused.ok) return refused;
  const link = await linkedAccount(db, discordId);
  if (link?.userId === userId) return ok();
  if (link) return fail("conflict", "This Discord account is linked to another account.");
  if (await linkOf(db, userId)) return fail("conflict", ALREADY_LINKED);
  // Two links finishing at once: the unique indexes let one insert in, whichever it is.
  const inserted = await db
    .insert(oauthAccounts)
    .values({ provider: "discord", providerUserId: discordId, providerUsername: username, userId, createdAt: now })
    .onConflictDoNothing()
    .returning({ userId: oauthAccounts.userId });
  if (inserted.length === 0) return fail("conflict", "Another Discord link finished at the same moment; reload the Security page.");
  await audit(db, userId, "discord.link", userId, { discordId, username }, ip);
  const account = await findById(db, userId, now);
  if (account) {
    await sendMail(deps, {
      to: account.email,
      subject: `Discord was linked to your ${BRAND} account`,
      ...mailBody([
        `The Discord account "${username}" can now log in to your ${BRAND} account "${account.username}".`,
        "If that was not you, unlink it on the Security page of your dashboard and change your password.",
      ]),
    });
  }
  return ok();
}

/** The member's own Discord link ends, unless it is their only way in (no password, no passkey). */
export async function unlinkDiscord(db: Db, userId: string, ip: string | null, now = Date.now()): Promise<Result> {
  const link = await linkOf(db, userId);
  if (!link) return fail("conflict", "No Discord account is linked.");
  const account = await findById(db, userId, now);
  const passkey = await db.select({ id: passkeys.id }).from(passkeys).where(eq(passkeys.userId, userId)).get();
  if (!account?.passwordHash && !passkey)
    return fail("conflict", "Discord is your only way to log in: set a password first (Forgot your password? on the log-in page).");
  await db.delete(oauthAccounts).where(and(eq(oauthAccounts.provider, "discord"), eq(oauthAccounts.userId, userId)));
  await audit(db, userId, "discord.unlink", userId, { discordId: link.providerUserId }, ip);
  return ok();
}

/**
 * Confirms the address of a registration that a Discord sign-in opened: the verification link's
 * token proves the mailbox, and the round trip proves the Discord account linked to it. Answers
 * the account, verified, for the caller to claim the address's keys and sign it in.
 */
export async function confirmWithDiscord(
  db: Db,
  config: DiscordConfig,
  caller: Caller,
  callback: DiscordCallback,
  now = Date.now(),
): Promise<Result<{ id: string; email: string }>> {
  const token = caller.tokens.verify ?? null;
  const registration = await checkVerificationLink(db, token, now);
  if (!registration.ok) return registration;
  const discordUser = await discordUserOf(config, caller, callback);
  if (!discordUser.ok) return discordUser;
  const link = await linkedAccount(db, discordUser.value.id);
  if (link?.userId !== registration.value.id) return fail("forbidden", "This is not the Discord account that signed up with this address.");
  return verifyEmail(db, token, now);
}

const linkOf = (db: Db, userId: string) =>
  db
    .select({ providerUserId: oauthAccounts.providerUserId, username: oauthAccounts.providerUsername })
    .from(oauthAccounts)
    .where(and(eq(oauthAccounts.provider, "discord"), eq(oauthAccounts.userId, userId)))
    .get();

/** What the Security page shows of Discord: the linked account's name, or whether linking one asks for the password. */
export async function discordSettingsOf(db: Db, userId: string): Promise<{ linked: string | null; askPassword: boolean }> {
  const [link, account] = await Promise.all([linkOf(db, userId), findById(db, userId)]);
  return { linked: link ? (link.username ?? "a Discord account") : null, askPassword: Boolean(account?.passwordHash) };
}
