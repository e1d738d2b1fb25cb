import { env } from "cloudflare:workers";
import { createExecutionContext } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  auditLog,
  discordRoleReleases,
  discordRoleSync,
  oauthAccounts,
  passwordResetTokens,
  profiles,
  recoveryCodes,
  sessions,
  totpFactors,
  users,
} from "~/server/platform/db/schema.server";
import {
  type DiscordConfig,
  finishDiscordSignIn,
  forgetDiscordRoundTrip,
  startDiscordSignIn,
} from "~/server/accounts/discord-login.server";
import worker from "../../workers/app";
import { signInAs } from "~/server/accounts/sign-in.server";
import { call, cookieFrom, createAccount, db, latestMail, ORIGIN, signIn, unique } from "../helpers";
import { callerOf, tokenCookie } from "~/http/caller.server";

const config: DiscordConfig = { DISCORD_CLIENT_ID: "client-123", DISCORD_CLIENT_SECRET: "secret-456" };
const deps = { db, mail: env, waitUntil: () => {} };

afterEach(() => vi.restoreAllMocks());

/** Discord's token and user endpoints, as the test wants them to answer. */
function discordAnswers(user: Record<string, unknown>) {
  return vi.spyOn(globalThis, "fetch").mockImplementation(async (input: RequestInfo | URL) => {
    const url = String(input instanceof Request ? input.url : input);
    if (url.includes("/oauth2/token")) return Response.json({ access_token: "token-abc", token_type: "Bearer", expires_in: 3600 });
    if (url.endsWith("/users/@me")) return Response.json(user);
    return new Response("unexpected", { status: 500 });
  });
}

/** The browser coming back from Discord with the round trip's cookies: who calls, and what Discord sent. */
function callback(state: string, cookies: string[], stateInUrl = state, ip = "198.51.100.1") {
  const cookieHeader = cookies.map((c) => c.split(";")[0]).join("; ");
  const request = new Request(`${ORIGIN}/auth/discord/callback?code=the-code&state=${stateInUrl}`, {
    headers: { Cookie: cookieHeader, "CF-Connecting-IP": ip },
  });
  return [callerOf(request), { code: "the-code", state: stateInUrl }] as const;
}

function started() {
  const { url, tokens } = startDiscordSignIn(config, ORIGIN);
  return { url: new URL(url), cookies: tokens.map(tokenCookie), state: new URL(url).searchParams.get("state")! };
}

/** The Worker with Discord configured, as a shop that set both settings runs it. */
function configured(path: string, init: RequestInit & { cookie?: string } = {}) {
  const headers = new Headers(init.headers);
  headers.set("CF-Connecting-IP", "198.51.100.9");
  if (init.cookie) headers.set("Cookie", init.cookie);
  if (init.method === "POST") headers.set("Origin", ORIGIN);
  const request = new Request(`${ORIGIN}${path}`, { ...init, headers, redirect: "manual" });
  return worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, { ...env, ...config }, createExecutionContext());
}
const cookiesOf = (response: Response) =>
  response.headers
    .getSetCookie()
    .map((c) => c.split(";")[0]!)
    .filter((c) => !c.endsWith("="));
const form = (fields: Record<string, string>) => ({ method: "POST", body: new URLSearchParams(fields) });

/** A round trip to Discord through the configured Worker: the start answers a redirect, the callback comes back with its cookies. */
async function roundTrip(start: Response, cookie: string[] = []) {
  expect(start.status).toBe(302);
  const state = new URL(start.headers.get("Location")!).searchParams.get("state")!;
  return configured(`/auth/discord/callback?code=the-code&state=${state}`, { cookie: [...cookie, ...cookiesOf(start)].join("; ") });
}

describe("sign in with Discord", () => {
  it("is hidden and unreachable when not configured", async () => {
    expect(await (await call("/auth")).text()).not.toContain("Continue with Discord");
    expect((await call("/auth/discord")).status).toBe(404);
    expect((await call("/auth/discord/callback?code=x&state=y")).status).toBe(404);
  });

  it("sends the browser to Discord with PKCE and a state tied to a cookie", async () => {
    const { url, cookies, state } = started();
    expect(url.origin).toBe("https://discord.com");
    // RFC 7636 S256: the challenge is the verifier's SHA-256, base64url without padding.
    const verifier = cookies
      .find((c) => c.startsWith("__Host-discord-verifier="))!
      .split(";")[0]!
      .split("=")[1]!;
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
    expect(url.searchParams.get("code_challenge")).toBe(
      btoa(String.fromCharCode(...digest))
        .replace(/\+/g, "-")
        .replace(/\//g, "_")
        .replace(/=+$/, ""),
    );
    expect(url.searchParams.get("client_id")).toBe("client-123");
    expect(url.searchParams.get("redirect_uri")).toBe(`${ORIGIN}/auth/discord/callback`);
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("scope")).toBe("identify email guilds.join");
    expect(cookies.some((c) => c.startsWith(`__Host-discord-state=${state};`) && c.includes("HttpOnly"))).toBe(true);
  });

  it("refuses a callback whose state does not match this browser's", async () => {
    const { cookies, state } = started();
    const fetchSpy = discordAnswers({ id: "1", username: "x", email: "x@example.test", verified: true });
    const outcome = await finishDiscordSignIn(deps, config, ...callback(state, cookies, "forged-state"));
    expect(outcome).toEqual({
      ok: false,
      problem: { code: "unauthenticated", message: "The sign-in link expired or did not come from this browser. Please try again." },
    });
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it("opens a registration for a new Discord user that signs in only once its address is confirmed, with that Discord account", async () => {
    const discordId = unique("d");
    const email = `${unique("disc")}@example.test`;
    discordAnswers({ id: discordId, username: "Gamer Tag!", email, verified: true, avatar: "abc" });
    const first = await roundTrip(await configured("/auth/discord"));
    expect(first.headers.get("Location")).toBe("/auth");
    const user = await db.select().from(users).where(eq(users.email, email)).get();
    expect(user).toMatchObject({ emailVerifiedAt: null, passwordHash: null });
    expect((await db.select().from(profiles).where(eq(profiles.id, user!.id)).get())?.username).toMatch(/^GamerTag/);
    // Discord's word on the address proves nothing: our own link goes to it.
    const link = (await latestMail(email, "Verify your"))?.textBody.match(/https:\/\/shop\.test(\/auth\/verify\?token=[\w-]+)/)?.[1];
    expect(link).toBeDefined();

    // Until the address is confirmed, Discord leads back to the same request, and no new account.
    const again = started();
    expect(await finishDiscordSignIn(deps, config, ...callback(again.state, again.cookies))).toEqual({
      ok: true,
      value: { kind: "confirm-email", email },
    });
    expect(await db.select().from(users).where(eq(users.email, email)).all()).toHaveLength(1);

    // The link's page asks to confirm with Discord; another Discord account confirms nothing.
    const opened = await configured(link!);
    const verify = cookiesOf(opened);
    expect(await (await configured("/auth/verify", { cookie: verify.join("; ") })).text()).toContain("Confirm with Discord");
    discordAnswers({ id: unique("other"), username: "someone else", email: `${unique("x")}@example.test`, verified: true });
    const wrong = await roundTrip(await configured("/auth/discord", { ...form({ intent: "confirm" }), cookie: verify.join("; ") }), verify);
    expect(wrong.headers.get("Location")).toBe("/auth/verify");
    expect((await db.select().from(users).where(eq(users.id, user!.id)).get())?.emailVerifiedAt).toBeNull();

    // The same Discord account, with the link's cookie: confirmed and signed in.
    discordAnswers({ id: discordId, username: "Gamer Tag!", email, verified: true });
    const confirmed = await roundTrip(
      await configured("/auth/discord", { ...form({ intent: "confirm" }), cookie: verify.join("; ") }),
      verify,
    );
    expect(confirmed.headers.get("Location")).toBe("/");
    expect(confirmed.headers.getSetCookie().some((c) => c.startsWith("__Host-session="))).toBe(true);
    expect((await db.select().from(users).where(eq(users.id, user!.id)).get())?.emailVerifiedAt).toBeTypeOf("number");
    const next = started();
    expect(await finishDiscordSignIn(deps, config, ...callback(next.state, next.cookies))).toEqual({
      ok: true,
      value: { kind: "account", id: user!.id },
    });
  });

  it("never joins an existing account by its address", async () => {
    const account = await createAccount();
    discordAnswers({ id: unique("d"), username: "someone", email: account.email.toUpperCase(), verified: true });
    const { state, cookies } = started();
    expect(await finishDiscordSignIn(deps, config, ...callback(state, cookies))).toEqual({
      ok: false,
      problem: {
        code: "conflict",
        message: "An account with this e-mail address already exists. Log in to it, then link Discord on your Security page.",
      },
    });
    expect(await db.select().from(oauthAccounts).where(eq(oauthAccounts.userId, account.id)).get()).toBeUndefined();
  });

  it("replaces an unverified account with that e-mail: whoever registered it without proving the address keeps nothing", async () => {
    const squatter = await createAccount({ verified: false });
    const now = Date.now();
    const sessionId = unique("sess");
    await db.batch([
      db.insert(sessions).values({
        id: sessionId,
        publicId: unique("pub"),
        userId: squatter.id,
        expiresAt: now + 86_400_000,
        createdAt: now,
        lastSeenAt: now,
      }),
      db.insert(totpFactors).values({ userId: squatter.id, secret: "x", status: "verified", createdAt: now, verifiedAt: now }),
      db.insert(recoveryCodes).values({ userId: squatter.id, codeHash: "h" }),
      db.insert(passwordResetTokens).values({ tokenHash: unique("reset"), userId: squatter.id, createdAt: now, expiresAt: now + 60_000 }),
    ]);
    discordAnswers({ id: unique("d"), username: "owner", email: squatter.email.toUpperCase(), verified: true });
    const { state, cookies } = started();
    const outcome = await finishDiscordSignIn(deps, config, ...callback(state, cookies, state, "203.0.113.77"));
    expect(outcome).toEqual({ ok: true, value: { kind: "confirm-email", email: squatter.email } });
    const user = await db.select().from(users).where(eq(users.email, squatter.email)).get();
    expect(user?.id).not.toBe(squatter.id);

    // A new registration with Discord's name, waiting for the same confirmation; the old one is gone with everything it held.
    expect(user).toMatchObject({ passwordHash: null, emailVerifiedAt: null });
    expect((await db.select().from(profiles).where(eq(profiles.id, user!.id)).get())?.username).toMatch(/^owner/);
    expect(await db.select().from(users).where(eq(users.id, squatter.id)).get()).toBeUndefined();
    for (const table of [totpFactors, recoveryCodes, passwordResetTokens, sessions]) {
      expect(await db.select().from(table).where(eq(table.userId, squatter.id))).toHaveLength(0);
    }
    const login = await call("/auth", {
      form: { intent: "login", emailOrUsername: squatter.email, password: squatter.password },
      ip: unique("ip"),
    });
    expect(login.status).toBe(401);
    expect(
      await db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.action, "registration.replace"), eq(auditLog.subject, user!.id))),
    ).toEqual([
      expect.objectContaining({
        actorUserId: null,
        ip: "203.0.113.77",
        detail: JSON.stringify({ replacedUserId: squatter.id, how: "discord" }),
      }),
    ]);
  });

  it("drops the Discord link of a registration whose address a password reset proves: the mailbox's owner gets the account alone", async () => {
    const email = `${unique("owner")}@example.test`;
    const discordId = unique("d");
    discordAnswers({ id: discordId, username: "intruder", email, verified: true });
    const first = started();
    await finishDiscordSignIn(deps, config, ...callback(first.state, first.cookies));
    // The mailbox's owner never signed up: they reset the password of the account holding their address.
    await call("/auth/forgot", { form: { emailOrUsername: email }, ip: unique("ip") });
    // The reset link is mailed after the answer.
    await vi.waitFor(async () => expect(await latestMail(email, "Reset your")).toBeDefined(), { timeout: 5000 });
    const reset = (await latestMail(email, "Reset your"))!.textBody.match(/https:\/\/shop\.test(\/auth\/reset\?token=[\w-]+)/)![1]!;
    const opened = await call(reset);
    const cookie = cookieFrom(opened, "__Host-reset")!;
    expect((await call("/auth/reset", { form: { password: "the-owners-own" }, cookie })).status).toBe(302);
    expect((await db.select().from(users).where(eq(users.email, email)).get())?.emailVerifiedAt).toBeTypeOf("number");
    expect(await db.select().from(oauthAccounts).where(eq(oauthAccounts.providerUserId, discordId))).toHaveLength(0);
    // The Discord account that opened the registration no longer leads into it.
    const again = started();
    expect(await finishDiscordSignIn(deps, config, ...callback(again.state, again.cookies))).toMatchObject({
      ok: false,
      problem: { code: "conflict" },
    });
  });

  it("refuses a Discord account whose e-mail Discord has not verified", async () => {
    const account = await createAccount();
    discordAnswers({ id: unique("d"), username: "someone", email: account.email, verified: false });
    const { state, cookies } = started();
    const outcome = await finishDiscordSignIn(deps, config, ...callback(state, cookies));
    expect(outcome).toEqual({
      ok: false,
      problem: {
        code: "forbidden",
        message: "Your Discord account has no verified e-mail address. Verify it on Discord, or sign up with e-mail.",
      },
    });
    expect(await db.select().from(oauthAccounts).where(eq(oauthAccounts.userId, account.id)).get()).toBeUndefined();
  });

  it("opens only the second step for an account with two-factor authentication", async () => {
    const account = await createAccount();
    const now = Date.now();
    const discordId = unique("d");
    await db.batch([
      db.insert(totpFactors).values({ userId: account.id, secret: "x", status: "verified", createdAt: now, verifiedAt: now }),
      db.insert(oauthAccounts).values({ provider: "discord", providerUserId: discordId, userId: account.id, createdAt: now }),
    ]);
    discordAnswers({ id: discordId, username: "someone", email: account.email, verified: true });
    const { state, cookies } = started();
    const outcome = await finishDiscordSignIn(deps, config, ...callback(state, cookies));
    expect(outcome).toEqual({ ok: true, value: { kind: "account", id: account.id } });
    // What the callback route starts for it: the challenge, not a session.
    const secondStep = await signInAs(db, account.id, callback(state, cookies)[0]);
    expect(secondStep.ok && { secondFactor: secondStep.value.secondFactor, cookie: tokenCookie(secondStep.value.token) }).toEqual({
      secondFactor: true,
      cookie: expect.stringMatching(/^__Host-2fa=/),
    });
    // A banned account gets neither a session nor a second step, whichever way it proved itself.
    await db.update(users).set({ bannedAt: Date.now(), banReason: "test" }).where(eq(users.id, account.id));
    expect(await signInAs(db, account.id, callback(state, cookies)[0])).toEqual({
      ok: false,
      problem: { code: "forbidden", message: "This account has been suspended. Contact support." },
    });
    expect(await db.select().from(sessions).where(eq(sessions.userId, account.id))).toHaveLength(0);
  });

  it("says so when Discord does not confirm the sign-in", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    vi.spyOn(globalThis, "fetch").mockResolvedValue(new Response("down", { status: 503 }));
    const { state, cookies } = started();
    expect(await finishDiscordSignIn(deps, config, ...callback(state, cookies))).toEqual({
      ok: false,
      problem: { code: "unauthenticated", message: "Discord did not confirm the sign-in. Please try again." },
    });
  });

  it("clears the cookies that tied the callback to the browser", () => {
    const cleared = forgetDiscordRoundTrip().map(tokenCookie);
    expect(cleared.map((c) => c.split("=")[0])).toEqual(["__Host-discord-state", "__Host-discord-verifier", "__Host-discord-mode"]);
    for (const cookie of cleared) expect(cookie).toMatch(/Max-Age=0/);
  });
});

describe("linking Discord from the Security page", () => {
  it("asks for the password, links the Discord account to the member, tells them by e-mail, and unlinks it", async () => {
    const member = await createAccount();
    const session = await signIn(member, unique("ip"));
    const discordId = unique("d");
    discordAnswers({ id: discordId, username: "member-on-discord", email: `${unique("other")}@example.test`, verified: true });
    // A session alone is not enough.
    const refused = await configured("/auth/discord", { ...form({ intent: "link", password: "not-it" }), cookie: session });
    expect(refused.headers.get("Location")).toBe("/dashboard/security");
    const back = await roundTrip(
      await configured("/auth/discord", { ...form({ intent: "link", password: member.password }), cookie: session }),
      [session],
    );
    expect(back.headers.get("Location")).toBe("/dashboard/security");
    expect(await db.select().from(oauthAccounts).where(eq(oauthAccounts.providerUserId, discordId))).toEqual([
      expect.objectContaining({ userId: member.id, providerUsername: "member-on-discord" }),
    ]);
    expect(
      await db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.action, "discord.link"), eq(auditLog.subject, member.id))),
    ).toHaveLength(1);
    expect((await latestMail(member.email, "Discord was linked"))?.textBody).toContain('"member-on-discord"');
    const page = (await (await configured("/dashboard/security", { cookie: session })).text()).replace(/<!-- -->/g, "");
    expect(page).toContain("member-on-discord");
    expect(page).toContain("Unlink Discord");

    const unlinked = await configured("/dashboard/security", { ...form({ intent: "unlink-discord" }), cookie: session });
    expect(unlinked.status).toBe(200);
    expect(await db.select().from(oauthAccounts).where(eq(oauthAccounts.providerUserId, discordId))).toHaveLength(0);
  });

  it("refuses a Discord account linked to another member, and a link finished by someone else signed in", async () => {
    const member = await createAccount();
    const session = await signIn(member, unique("ip"));
    const discordId = unique("d");
    discordAnswers({ id: discordId, username: "taken", email: `${unique("other")}@example.test`, verified: true });
    await roundTrip(await configured("/auth/discord", { ...form({ intent: "link", password: member.password }), cookie: session }), [
      session,
    ]);

    const other = await createAccount();
    const otherSession = await signIn(other, unique("ip"));
    await roundTrip(await configured("/auth/discord", { ...form({ intent: "link", password: other.password }), cookie: otherSession }), [
      otherSession,
    ]);
    expect(await db.select().from(oauthAccounts).where(eq(oauthAccounts.providerUserId, discordId))).toEqual([
      expect.objectContaining({ userId: member.id }),
    ]);

    // A link started by one member and finished while another is signed in links nothing.
    discordAnswers({ id: unique("d"), username: "late", email: `${unique("late")}@example.test`, verified: true });
    const third = await createAccount();
    const started = await configured("/auth/discord", {
      ...form({ intent: "link", password: third.password }),
      cookie: await signIn(third, unique("ip")),
    });
    const finished = await roundTrip(started, [otherSession]);
    expect(finished.headers.get("Location")).toBe("/auth");
    expect(await db.select().from(oauthAccounts).where(eq(oauthAccounts.userId, other.id))).toHaveLength(0);
    expect(await db.select().from(oauthAccounts).where(eq(oauthAccounts.userId, third.id))).toHaveLength(0);
  });

  it("links one Discord account to a member, however many round trips were started in other browsers", async () => {
    const member = await createAccount();
    // Two browsers, each signed in and each past the password, both leave for Discord before either
    // comes back; then they come back one after the other, and two more at the same moment.
    const browsers = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const session = await signIn(member, unique("ip"));
        return {
          session,
          start: await configured("/auth/discord", { ...form({ intent: "link", password: member.password }), cookie: session }),
        };
      }),
    );
    const [first, second, ...racing] = browsers;
    discordAnswers({ id: unique("d"), username: "first-discord", email: `${unique("a")}@example.test`, verified: true });
    expect((await roundTrip(first!.start, [first!.session])).headers.get("Location")).toBe("/dashboard/security");
    vi.restoreAllMocks();
    discordAnswers({ id: unique("d"), username: "second-discord", email: `${unique("b")}@example.test`, verified: true });
    const refused = await roundTrip(second!.start, [second!.session]);
    expect(refused.headers.get("Location")).toBe("/dashboard/security");
    expect(await db.select().from(oauthAccounts).where(eq(oauthAccounts.userId, member.id))).toEqual([
      expect.objectContaining({ providerUsername: "first-discord" }),
    ]);

    // Unlinked, two links finishing at the same moment still leave one.
    await configured("/dashboard/security", { ...form({ intent: "unlink-discord" }), cookie: first!.session });
    vi.restoreAllMocks();
    let calls = 0;
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input: RequestInfo | URL) => {
      const url = String(input instanceof Request ? input.url : input);
      if (url.includes("/oauth2/token")) return Response.json({ access_token: "token-abc", token_type: "Bearer", expires_in: 3600 });
      calls += 1;
      return Response.json({
        id: `race-${calls}-${member.id}`,
        username: `racer-${calls}`,
        email: `${unique("r")}@example.test`,
        verified: true,
      });
    });
    await Promise.all(racing.map((browser) => roundTrip(browser.start, [browser.session])));
    expect(calls).toBe(2);
    expect(await db.select().from(oauthAccounts).where(eq(oauthAccounts.userId, member.id))).toHaveLength(1);
    expect(
      await db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.action, "discord.link"), eq(auditLog.subject, member.id))),
    ).toHaveLength(2);
  });

  it("needs a signed-in member to start", async () => {
    const start = await configured("/auth/discord", form({ intent: "link", password: "x" }));
    expect(start.headers.get("Location")).toBe("/auth");
  });

  it("keeps Discord when it is the account's only way in", async () => {
    const discordId = unique("d");
    const email = `${unique("only")}@example.test`;
    discordAnswers({ id: discordId, username: "only-discord", email, verified: true });
    await roundTrip(await configured("/auth/discord"));
    const user = (await db.select().from(users).where(eq(users.email, email)).get())!;
    await db.update(users).set({ emailVerifiedAt: Date.now() }).where(eq(users.id, user.id));
    const session = await roundTrip(await configured("/auth/discord"));
    const cookie = cookiesOf(session).find((c) => c.startsWith("__Host-session="))!;
    const refused = await configured("/dashboard/security", { ...form({ intent: "unlink-discord" }), cookie });
    expect(refused.status).toBe(409);
    expect(await db.select().from(oauthAccounts).where(eq(oauthAccounts.providerUserId, discordId))).toHaveLength(1);
  });
});

describe("the migration that makes one Discord link per account", () => {
  it("keeps the link made first (the one the Security page showed) and releases the others' roles", async () => {
    const migration = env.TEST_MIGRATIONS.find((m) => m.name.endsWith("one_discord_link_each.sql"))!;
    // The table as it was before: no unique index, and a member with two Discord logins.
    await env.DB.batch([
      env.DB.prepare("DROP INDEX `oauth_accounts_user_provider`"),
      env.DB.prepare("CREATE INDEX `oauth_accounts_user` ON `oauth_accounts` (`user_id`)"),
    ]);
    const member = await createAccount();
    const single = await createAccount();
    const [shown, hidden, alone] = [unique("d"), unique("d"), unique("d")];
    await db.insert(oauthAccounts).values([
      { provider: "discord", providerUserId: shown, providerUsername: "shown", userId: member.id, createdAt: 1 },
      { provider: "discord", providerUserId: hidden, providerUsername: "hidden", userId: member.id, createdAt: 2 },
      { provider: "discord", providerUserId: alone, providerUsername: "alone", userId: single.id, createdAt: 3 },
    ]);
    await db.insert(discordRoleSync).values({ userId: member.id, discordId: hidden });
    for (const query of migration.queries) await env.DB.prepare(query).run();

    expect((await db.select().from(oauthAccounts).where(eq(oauthAccounts.userId, member.id))).map((l) => l.providerUsername)).toEqual([
      "shown",
    ]);
    expect((await db.select().from(oauthAccounts).where(eq(oauthAccounts.userId, single.id))).map((l) => l.providerUsername)).toEqual([
      "alone",
    ]);
    expect((await db.select().from(discordRoleReleases).where(eq(discordRoleReleases.userId, member.id))).map((r) => r.discordId)).toEqual([
      hidden,
    ]);
    // From now on the database itself refuses a second link.
    await expect(
      db.insert(oauthAccounts).values({ provider: "discord", providerUserId: unique("d"), userId: single.id, createdAt: 4 }),
    ).rejects.toThrow();
  });
});
