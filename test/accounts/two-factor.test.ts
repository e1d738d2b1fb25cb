import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import * as OTPAuth from "otpauth";
import { describe, expect, it } from "vitest";
import type { Viewer } from "~/lib/viewer";
import { auditLog, recoveryCodes, sessions, totpFactors } from "~/server/platform/db/schema.server";
import {
  confirmEnrolment,
  disableTwoFactor,
  startEnrolment,
  twoFactorStatus,
  verifySecondFactor,
} from "~/server/accounts/two-factor.server";
import { sha256Hex } from "~/server/platform/tokens.server";
import { call, cookieFrom, createAccount, db, ORIGIN, signIn, unique } from "../helpers";
import { callerOf } from "~/http/caller.server";

const KEY = env.TOTP_ENCRYPTION_KEY;
/** Domain calls made outside any browser session: no chat socket to close. */
const deps = { db, sessionsEnded: async () => {} };
/** A request from a client of its own, so throttle counts per client never meet across tests. */
const from = (ip = unique("ip")) => callerOf(new Request(ORIGIN, { headers: { "CF-Connecting-IP": ip } }));

function codeAt(secret: string, timestamp: number) {
  return new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30 }).generate({ timestamp });
}

async function enrolled(now = Date.now()) {
  const account = await createAccount();
  const viewer: Viewer = { id: account.id, email: account.email, username: account.username, avatarUrl: null, role: null };
  const started = await startEnrolment(db, KEY, viewer, now);
  if (!started.ok) throw new Error(started.problem.message);
  const confirmed = await confirmEnrolment(deps, KEY, viewer, from(), codeAt(started.value.secret, now), now);
  if (!confirmed.ok) throw new Error(confirmed.problem.message);
  return { account, viewer, secret: started.value.secret, recovery: confirmed.value.recoveryCodes };
}

async function passwordStep(account: { email: string; password: string }, ip = unique("ip")) {
  const response = await call("/auth", { form: { intent: "login", emailOrUsername: account.email, password: account.password }, ip });
  return { response, challenge: cookieFrom(response, "__Host-2fa"), ip };
}

describe("two-factor enrolment", () => {
  it("turns on only after a valid code, with ten recovery codes, and keeps the secret encrypted", async () => {
    const account = await createAccount();
    const viewer: Viewer = { id: account.id, email: account.email, username: account.username, avatarUrl: null, role: null };
    const started = await startEnrolment(db, KEY, viewer);
    if (!started.ok) throw new Error(started.problem.message);
    const { secret, qrDataUrl } = started.value;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/); // 20 random bytes in base32
    expect(qrDataUrl).toMatch(/^data:image\/svg\+xml;base64,/);
    const stored = await db.select().from(totpFactors).where(eq(totpFactors.userId, account.id)).get();
    expect(stored?.status).toBe("pending");
    expect(stored?.secret).not.toContain(secret);

    expect(await confirmEnrolment(deps, KEY, viewer, from(), "000000")).toEqual({
      ok: false,
      problem: { code: "invalid", message: "That code is not valid. Check your app's time and try again.", field: "code" },
    });
    expect((await twoFactorStatus(db, account.id)).enabled).toBe(false);

    const confirmed = await confirmEnrolment(deps, KEY, viewer, from(), codeAt(secret, Date.now()));
    if (!confirmed.ok) throw new Error(confirmed.problem.message);
    const codes = confirmed.value.recoveryCodes;
    expect(codes).toHaveLength(10);
    for (const code of codes) expect(code).toMatch(/^[2-9A-Z]{5}-[2-9A-Z]{5}$/);
    const hashes = await db.select().from(recoveryCodes).where(eq(recoveryCodes.userId, account.id));
    expect(hashes.every((h) => !codes.some((c) => h.codeHash.includes(c.replace("-", ""))))).toBe(true);
    expect(await twoFactorStatus(db, account.id)).toEqual({ enabled: true, recoveryCodesLeft: 10 });
  });

  it("shows the real status on the page", async () => {
    const { account, secret } = await enrolled(Date.now() - 30_000);
    const { challenge, ip } = await passwordStep(account);
    const session = cookieFrom(
      await call("/auth/2fa", { form: { code: codeAt(secret, Date.now()) }, cookie: challenge!, ip }),
      "__Host-session",
    )!;
    expect(await (await call("/dashboard/2fa", { cookie: session })).text()).toContain("Enabled</span>");
    const plain = await createAccount();
    const other = cookieFrom(
      await call("/auth", { form: { intent: "login", emailOrUsername: plain.email, password: plain.password }, ip: unique("ip") }),
      "__Host-session",
    )!;
    expect(await (await call("/dashboard/2fa", { cookie: other })).text()).toContain("Disabled</span>");
  });
});

describe("signing in with two-factor authentication", () => {
  it("asks for a code after the password and starts the session only once the code checks out", async () => {
    const { account, secret } = await enrolled(Date.now() - 30_000);
    const { response, challenge, ip } = await passwordStep(account);
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/auth/2fa");
    expect(cookieFrom(response, "__Host-session")).toBeNull();
    expect(challenge).not.toBeNull();
    expect(await db.select().from(sessions).where(eq(sessions.userId, account.id)).all()).toHaveLength(0);
    // Nothing private opens with the challenge alone.
    expect((await call("/dashboard", { cookie: challenge! })).status).toBe(302);

    const signedIn = await call("/auth/2fa", { form: { code: codeAt(secret, Date.now()) }, cookie: challenge!, ip });
    expect(signedIn.status).toBe(302);
    expect(signedIn.headers.get("Location")).toBe("/");
    expect(signedIn.headers.getSetCookie().find((c) => c.startsWith("__Host-2fa="))).toMatch(/Max-Age=0/);
    const welcome = await call("/api/viewer", { cookie: cookieFrom(signedIn, "__Host-toast")! });
    expect((await welcome.json()) as object).toMatchObject({
      toast: { title: "Welcome back!", description: "You've successfully logged in" },
    });
    const session = cookieFrom(signedIn, "__Host-session");
    expect(session).not.toBeNull();
    expect((await call("/dashboard", { cookie: session! })).status).toBe(200);
  });

  it("refuses the same code twice within its time step", async () => {
    const { account, secret } = await enrolled(Date.now() - 60_000);
    const code = codeAt(secret, Date.now());
    const first = await passwordStep(account);
    expect((await call("/auth/2fa", { form: { code }, cookie: first.challenge!, ip: first.ip })).status).toBe(302);
    const second = await passwordStep(account);
    const replay = await call("/auth/2fa", { form: { code }, cookie: second.challenge!, ip: second.ip });
    expect(replay.status).toBe(401);
    expect(cookieFrom(replay, "__Host-session")).toBeNull();
    const body = await replay.text();
    expect(body).toContain("Invalid code");
    expect(body).toContain("That code did not work. 4 attempts left.");
  });

  it("accepts one step of clock drift either way, but not two", async () => {
    const now = Date.now();
    const { account, secret } = await enrolled(now - 10 * 30_000);
    expect(await verifySecondFactor(db, KEY, account.id, account.email, codeAt(secret, now - 2 * 30_000), now)).toBe(false);
    expect(await verifySecondFactor(db, KEY, account.id, account.email, codeAt(secret, now - 30_000), now)).toBe(true);
    expect(await verifySecondFactor(db, KEY, account.id, account.email, codeAt(secret, now + 30_000), now)).toBe(true);
    // An older step after a newer one was used is refused too.
    expect(await verifySecondFactor(db, KEY, account.id, account.email, codeAt(secret, now), now)).toBe(false);
  });

  it("accepts a recovery code exactly once", async () => {
    const { account, recovery } = await enrolled();
    const first = await passwordStep(account);
    const used = await call("/auth/2fa", { form: { code: recovery[0]!.toLowerCase() }, cookie: first.challenge!, ip: first.ip });
    expect(used.status).toBe(302);
    expect(cookieFrom(used, "__Host-session")).not.toBeNull();
    const second = await passwordStep(account);
    expect((await call("/auth/2fa", { form: { code: recovery[0]! }, cookie: second.challenge!, ip: second.ip })).status).toBe(401);
    expect((await twoFactorStatus(db, account.id)).recoveryCodesLeft).toBe(9);
  });

  it("makes recovery codes without look-alike characters (0/O, 1/I/L) or lower case", async () => {
    // 60 codes, 600 characters: with any of the five look-alikes in the alphabet, some would show.
    const codes = (await Promise.all(Array.from({ length: 6 }, () => enrolled()))).flatMap((e) => e.recovery);
    expect(codes).toHaveLength(60);
    for (const code of codes) expect(code).toMatch(/^[2-9A-HJKMNP-Z]{5}-[2-9A-HJKMNP-Z]{5}$/);
    expect(codes.join("")).not.toMatch(/[01OIL]/i);
  });

  it("takes a recovery code in any case and with any separators, or none, once", async () => {
    const { account, recovery } = await enrolled();
    const spellings = [
      (c: string) => ` ${c.slice(0, 5).toLowerCase()} ${c.slice(5)} `,
      (c: string) => c.toLowerCase(),
      (c: string) => `${c.slice(0, 3)}.${c.slice(3, 7)}_${c.slice(7)}`,
    ];
    for (const [i, spell] of spellings.entries()) {
      const { challenge, ip } = await passwordStep(account);
      const typed = spell(recovery[i]!.replace("-", ""));
      expect((await call("/auth/2fa", { form: { code: typed }, cookie: challenge!, ip })).status, typed).toBe(302);
    }
    const again = await passwordStep(account);
    expect((await call("/auth/2fa", { form: { code: recovery[2]!.toLowerCase() }, cookie: again.challenge!, ip: again.ip })).status).toBe(
      401,
    );
    expect((await twoFactorStatus(db, account.id)).recoveryCodesLeft).toBe(7);
  });

  it("still accepts a recovery code made with the old alphabet (with 0, O, 1, I, L)", async () => {
    const { account } = await enrolled();
    // Stored as before: the SHA-256 of the code without its hyphen, in upper case.
    await db.insert(recoveryCodes).values({ userId: account.id, codeHash: await sha256Hex("O0I1LAB2C3") });
    const { challenge, ip } = await passwordStep(account);
    const response = await call("/auth/2fa", { form: { code: "o0i1l-ab2c3" }, cookie: challenge!, ip });
    expect(response.status).toBe(302);
    expect(cookieFrom(response, "__Host-session")).not.toBeNull();
  });

  it("ends the challenge after five wrong codes", async () => {
    const { account, secret } = await enrolled();
    const { challenge, ip } = await passwordStep(account);
    for (let i = 0; i < 4; i++) expect((await call("/auth/2fa", { form: { code: "123456" }, cookie: challenge!, ip })).status).toBe(401);
    const fifth = await call("/auth/2fa", { form: { code: "123456" }, cookie: challenge!, ip });
    expect(fifth.status).toBe(302);
    expect(fifth.headers.get("Location")).toBe("/auth");
    // The browser forgets the challenge and is told why.
    expect(fifth.headers.getSetCookie().find((c) => c.startsWith("__Host-2fa="))).toMatch(/Max-Age=0/);
    const toast = await call("/api/viewer", { cookie: cookieFrom(fifth, "__Host-toast")! });
    expect((await toast.json()) as object).toMatchObject({
      toast: {
        title: "Sign in again",
        description: "Your sign-in timed out or had too many wrong codes. Please log in again.",
        variant: "destructive",
      },
    });
    // Even the right code is useless now.
    const late = await call("/auth/2fa", { form: { code: codeAt(secret, Date.now()) }, cookie: challenge!, ip });
    expect(late.status).toBe(302);
    expect(cookieFrom(late, "__Host-session")).toBeNull();
  });

  it("limits codes per account across challenges: signing in again with the password does not reset the count", async () => {
    const { account, secret } = await enrolled(Date.now() - 60_000);
    const first = await passwordStep(account);
    for (let i = 0; i < 5; i++) await call("/auth/2fa", { form: { code: "000000" }, cookie: first.challenge!, ip: first.ip });
    // A fresh challenge, from a fresh address, after a correct password.
    const second = await passwordStep(account);
    expect((await call("/auth/2fa", { form: { code: "000000" }, cookie: second.challenge!, ip: second.ip })).status).toBe(401);
    const blocked = await call("/auth/2fa", { form: { code: codeAt(secret, Date.now()) }, cookie: second.challenge!, ip: second.ip });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(cookieFrom(blocked, "__Host-session")).toBeNull();
    const body = await blocked.text();
    expect(body).toContain("Too Many Attempts");
    expect(body).toContain("Too many wrong codes");
  });

  it("sends /auth/2fa without a challenge back to /auth", async () => {
    const response = await call("/auth/2fa");
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/auth");
  });

  it("sends a code sent without a challenge back to sign in again", async () => {
    const response = await call("/auth/2fa", { form: { code: "123456" }, ip: unique("ip") });
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/auth");
    const toast = await call("/api/viewer", { cookie: cookieFrom(response, "__Host-toast")! });
    expect((await toast.json()) as object).toMatchObject({ toast: { title: "Sign in again" } });
  });
});

describe("turning two-factor authentication off", () => {
  it("requires a current code from the app", async () => {
    const now = Date.now();
    const { account, viewer, secret, recovery } = await enrolled(now - 60_000);
    expect(await disableTwoFactor(deps, KEY, viewer, from(), "000000", now)).toEqual({
      ok: false,
      problem: { code: "invalid", message: "Enter a current code from your authenticator app", field: "code" },
    });
    expect((await disableTwoFactor(deps, KEY, viewer, from(), recovery[1]!, now)).ok).toBe(false);
    expect((await twoFactorStatus(db, account.id)).enabled).toBe(true);
    expect((await disableTwoFactor(deps, KEY, viewer, from(), codeAt(secret, now), now)).ok).toBe(true);
    expect(await twoFactorStatus(db, account.id)).toEqual({ enabled: false, recoveryCodesLeft: 0 });
  });
});

/** A session for an account with 2FA on: the password, then one of its recovery codes (no time step used up). */
async function signInWith(account: { email: string; password: string }, recoveryCode: string) {
  const { challenge, ip } = await passwordStep(account);
  const response = await call("/auth/2fa", { form: { code: recoveryCode }, cookie: challenge!, ip });
  const session = cookieFrom(response, "__Host-session");
  if (!session) throw new Error(`second step failed with ${response.status}`);
  return { session, ip };
}

const settings = (cookie: string, ip: string, form: Record<string, string>) => call("/dashboard/2fa", { form, cookie, ip });

/** Where a session's cookie gets on /dashboard: 200 while it is signed in, a redirect to /auth once it is not. */
async function dashboardFor(cookie: string) {
  const response = await call("/dashboard", { cookie });
  return response.status === 302 ? `302 ${response.headers.get("Location")}` : String(response.status);
}

const auditOf = (userId: string, action: string) =>
  db
    .select()
    .from(auditLog)
    .where(eq(auditLog.subject, userId))
    .all()
    .then((rows) => rows.filter((r) => r.action === action));

describe("codes on the settings page share the sign-in limit", () => {
  it("throttles wrong codes to turn 2FA off (429 with Retry-After) and then refuses the right code too", async () => {
    const { account, secret, recovery } = await enrolled(Date.now() - 60_000);
    const { session, ip } = await signInWith(account, recovery[0]!);
    // Five wrong codes are free of delay, the sixth sets one (the sign-in challenge's policy).
    for (let i = 0; i < 6; i++) {
      const wrong = await settings(session, ip, { intent: "disable", code: "000000" });
      expect([i, wrong.status]).toEqual([i, 400]);
    }
    const blocked = await settings(session, ip, { intent: "disable", code: codeAt(secret, Date.now()) });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("Retry-After"))).toBeGreaterThan(0);
    const body = await blocked.text();
    expect(body).toContain("Too Many Attempts");
    expect(body).toContain("Too many wrong codes");
    expect((await twoFactorStatus(db, account.id)).enabled).toBe(true);
  });

  it("throttles wrong codes to turn 2FA on in the same way", async () => {
    const account = await createAccount();
    const ip = unique("ip");
    const session = await signIn(account, ip);
    expect((await settings(session, ip, { intent: "start" })).status).toBe(200);
    const stored = await db.select().from(totpFactors).where(eq(totpFactors.userId, account.id)).get();
    expect(stored?.status).toBe("pending");
    for (let i = 0; i < 6; i++) expect((await settings(session, ip, { intent: "confirm", code: "000000" })).status).toBe(400);
    const blocked = await settings(session, ip, { intent: "confirm", code: "123456" });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect((await twoFactorStatus(db, account.id)).enabled).toBe(false);
  });

  it("counts wrong codes on the settings page against the sign-in challenge's allowance", async () => {
    const { account, secret, recovery } = await enrolled(Date.now() - 60_000);
    const { session, ip } = await signInWith(account, recovery[0]!);
    for (let i = 0; i < 6; i++) await settings(session, ip, { intent: "disable", code: "000000" });
    // Signing in afresh, from another address, with the right password and the right code.
    const { challenge, ip: elsewhere } = await passwordStep(account);
    const refused = await call("/auth/2fa", { form: { code: codeAt(secret, Date.now()) }, cookie: challenge!, ip: elsewhere });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(cookieFrom(refused, "__Host-session")).toBeNull();
  });
});

describe("turning two-factor authentication on or off signs out the other sessions", () => {
  it("on: the other session's cookie no longer opens the dashboard; this one still does", async () => {
    const account = await createAccount();
    const [ipA, ipB] = [unique("ip"), unique("ip")];
    const [a, b] = [await signIn(account, ipA), await signIn(account, ipB)];
    expect([await dashboardFor(a), await dashboardFor(b)]).toEqual(["200", "200"]);
    // The page shows the new secret through a fetcher; here it is taken from the same function.
    const started = await startEnrolment(db, KEY, {
      id: account.id,
      email: account.email,
      username: account.username,
      avatarUrl: null,
      role: null,
    });
    if (!started.ok) throw new Error(started.problem.message);
    const enabled = await settings(a, ipA, { intent: "confirm", code: codeAt(started.value.secret, Date.now()) });
    expect(enabled.status).toBe(200);
    expect(await enabled.text()).toContain("Two-factor authentication enabled");
    expect([await dashboardFor(a), await dashboardFor(b)]).toEqual(["200", "302 /auth"]);
    expect((await auditOf(account.id, "2fa.enable")).map((r) => r.ip)).toEqual([ipA]);
  });

  it("off: the other session's cookie no longer opens the dashboard; this one still does", async () => {
    const { account, secret, recovery } = await enrolled(Date.now() - 60_000);
    const [a, b] = [await signInWith(account, recovery[0]!), await signInWith(account, recovery[1]!)];
    expect([await dashboardFor(a.session), await dashboardFor(b.session)]).toEqual(["200", "200"]);
    const disabled = await settings(a.session, a.ip, { intent: "disable", code: codeAt(secret, Date.now()) });
    expect(disabled.status).toBe(200);
    expect(await disabled.text()).toContain("Two-factor authentication disabled");
    expect([await dashboardFor(a.session), await dashboardFor(b.session)]).toEqual(["200", "302 /auth"]);
    expect((await auditOf(account.id, "2fa.disable")).map((r) => r.ip)).toEqual([a.ip]);
  });

  it("leaves sessions alone when the code is wrong", async () => {
    const { account, recovery } = await enrolled(Date.now() - 60_000);
    const [a, b] = [await signInWith(account, recovery[0]!), await signInWith(account, recovery[1]!)];
    expect((await settings(a.session, a.ip, { intent: "disable", code: "000000" })).status).toBe(400);
    expect([await dashboardFor(a.session), await dashboardFor(b.session)]).toEqual(["200", "200"]);
  });
});

describe("the two-factor settings page", () => {
  it("answers each step with its toast, and a wrong code or a step out of turn with the problem", async () => {
    const account = await createAccount();
    const session = cookieFrom(
      await call("/auth", { form: { intent: "login", emailOrUsername: account.email, password: account.password }, ip: unique("ip") }),
      "__Host-session",
    )!;
    const post = (form: Record<string, string>) => call("/dashboard/2fa", { form, cookie: session });

    const early = await post({ intent: "confirm", code: "123456" });
    expect(early.status).toBe(409);
    expect(await early.text()).toContain("Start again: open the setup first");

    const start = await post({ intent: "start" });
    expect(start.status).toBe(200);
    expect(await start.text()).toContain("Scan the QR code");

    const wrong = await post({ intent: "confirm", code: "000000" });
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain("That code is not valid.");

    const unknown = await post({ intent: "reset" });
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain("Unknown request");
  });

  it("refuses to start again once two-factor authentication is on", async () => {
    const { viewer } = await enrolled();
    expect(await startEnrolment(db, KEY, viewer)).toEqual({
      ok: false,
      problem: { code: "conflict", message: "Two-factor authentication is already enabled" },
    });
  });
});
