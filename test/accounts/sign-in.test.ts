import { env } from "cloudflare:workers";
import { desc, eq, inArray } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { checkForm } from "~/lib/form-schema";
import { authSchema } from "~/lib/schemas/auth";
import { signUp, verifyEmail } from "~/server/accounts/registration.server";
import { logIn } from "~/server/accounts/sign-in.server";
import { throttled } from "~/server/accounts/throttle.server";
import { runScheduledJobs } from "~/server/jobs/cron.server";
import { sha256Hex } from "~/server/platform/tokens.server";
import { authThrottle, emailVerificationTokens, mailOutbox, sessions, userSubscriptions, users } from "~/server/platform/db/schema.server";
import { call, confirmEmail, cookieFrom, createAccount, db, ORIGIN, signIn, soldKey, unique } from "../helpers";
import { callerOf, tokenCookie } from "~/http/caller.server";

const deps = { db, mail: env, waitUntil: () => {} };
const request = (ip = "203.0.113.9") => new Request(`${ORIGIN}/auth`, { headers: { "CF-Connecting-IP": ip } });

afterEach(() => vi.restoreAllMocks());

/** A verification link for the account: "live" for a minute, or "expired" a day ago. */
async function storeVerificationToken(userId: string, token: string, state: "live" | "expired") {
  const now = Date.now();
  const createdAt = state === "live" ? now : now - 2 * 86_400_000;
  const expiresAt = state === "live" ? now + 60_000 : now - 86_400_000;
  await db.insert(emailVerificationTokens).values({ tokenHash: await sha256Hex(token), userId, createdAt, expiresAt });
}

describe("sign-up validation", () => {
  const valid = () => ({ username: unique("new"), email: `${unique("new")}@example.test`, password: "secret-pass" });
  const cases: [string, Record<string, string>, string, string][] = [
    ["short username", { username: "ab" }, "Username must be at least 3 characters", "username"],
    ["username with @", { username: "me@home" }, "Username can only contain letters, numbers, dots, dashes and underscores", "username"],
    ["bad e-mail", { email: "not-an-email" }, "Invalid email address", "email"],
    ["short password", { password: "12345" }, "Password must be at least 6 characters", "password"],
    ["overlong password", { password: "x".repeat(129) }, "Password must be at most 128 characters", "password"],
  ];
  for (const [name, override, message, field] of cases) {
    it(`refuses a ${name} with the form's message, next to its field`, async () => {
      const form = { intent: "signup", ...valid(), ...override };
      expect(checkForm(authSchema, form)).toEqual({ ok: false, problem: { code: "invalid", message, field } });
      // Where the sign-up form posts to.
      const response = await call("/auth?mode=signup", { form, ip: unique("ip") });
      expect(response.status).toBe(400);
      const body = await response.text();
      expect(body).toContain("Validation Error");
      expect(body).toContain(message);
      // The page the form's plain POST gets back (sent before scripts ran) marks that field, and only it.
      expect(body).toMatch(new RegExp(`<input[^>]*aria-invalid="true"[^>]*name="${field}"`));
      expect(body.match(/<input[^>]*aria-invalid="true"/g)).toHaveLength(1);
    });
  }

  it("checks each of the page's forms by its intent, and refuses any other", async () => {
    expect(checkForm(authSchema, { intent: "login", emailOrUsername: " ", password: "secret-pass" })).toEqual({
      ok: false,
      problem: { code: "invalid", message: "Email or username is required", field: "emailOrUsername" },
    });
    expect(checkForm(authSchema, { intent: "resend", email: "nope" })).toEqual({
      ok: false,
      problem: { code: "invalid", message: "Invalid email address", field: "email" },
    });
    expect(checkForm(authSchema, { intent: "resend", email: " Someone@Example.TEST " })).toEqual({
      ok: true,
      value: { intent: "resend", email: "someone@example.test" },
    });
    const forms: Record<string, string>[] = [{ intent: "delete-account" }, { emailOrUsername: "someone", password: "secret-pass" }];
    for (const form of forms) {
      expect(checkForm(authSchema, form)).toEqual({ ok: false, problem: { code: "invalid", message: "Unknown request", field: "intent" } });
      const response = await call("/auth", { form, ip: unique("ip") });
      expect(response.status).toBe(400);
      expect(await response.text()).toContain("Unknown request");
    }
  });

  it("shows the same messages over HTTP, and creates nothing", async () => {
    const email = `${unique("http")}@example.test`;
    const response = await call("/auth", { form: { intent: "signup", username: "ab", email, password: "secret-pass" }, ip: unique("ip") });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("Username must be at least 3 characters");
    expect(await db.select().from(users).where(eq(users.email, email)).get()).toBeUndefined();
  });

  it("refuses an e-mail that is already registered, whatever its case", async () => {
    const existing = await createAccount();
    const outcome = await signUp(deps, callerOf(request(unique("ip"))), { ...valid(), email: existing.email.toUpperCase() });
    expect(outcome).toEqual({
      ok: false,
      problem: { code: "conflict", message: "This email is already registered. Try logging in instead.", field: "email" },
    });
    const response = await call("/auth", { form: { intent: "signup", ...valid(), email: existing.email }, ip: unique("ip") });
    expect(response.status).toBe(409);
    expect(await response.text()).toContain("Account Exists");
  });

  it("refuses a username that is taken, whatever its case", async () => {
    const existing = await createAccount();
    const outcome = await signUp(deps, callerOf(request(unique("ip"))), { ...valid(), username: existing.username.toUpperCase() });
    expect(outcome).toEqual({
      ok: false,
      problem: { code: "conflict", message: "This username is already taken. Please choose another.", field: "username" },
    });
    const response = await call("/auth", { form: { intent: "signup", ...valid(), username: existing.username }, ip: unique("ip") });
    expect(response.status).toBe(409);
    expect(await response.text()).toContain("Username Taken");
  });
});

describe("sign-up and e-mail verification", () => {
  it("creates an unverified account and mails a one-time verification link", async () => {
    const email = `${unique("verify")}@example.test`;
    const username = unique("verify");
    const response = await call("/auth", { form: { intent: "signup", username, email, password: "secret-pass" }, ip: unique("ip") });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("Please check your email to verify your account before logging in.");

    const user = await db.select().from(users).where(eq(users.email, email)).get();
    expect(user?.emailVerifiedAt).toBeNull();
    expect(user?.passwordHash).toMatch(/^pbkdf2_sha256\$100000\$/);

    // Login is refused until the address is verified.
    const early = await call("/auth", { form: { intent: "login", emailOrUsername: email, password: "secret-pass" }, ip: unique("ip") });
    expect(early.status).toBe(403);
    expect(await early.text()).toContain("Please verify your email before logging in");
    expect(cookieFrom(early, "__Host-session")).toBeNull();

    const mail = await db.select().from(mailOutbox).where(eq(mailOutbox.toAddress, email)).orderBy(desc(mailOutbox.id)).get();
    expect(mail?.subject).toContain("Verify your");
    const link = mail!.textBody.match(/https:\/\/shop\.test\/auth\/verify\?token=[A-Za-z0-9_-]+/)?.[0];
    expect(link).toBeDefined();
    // Only the token's hash is stored.
    const token = new URL(link!).searchParams.get("token")!;
    expect(await db.select().from(emailVerificationTokens).where(eq(emailVerificationTokens.tokenHash, token)).get()).toBeUndefined();

    const path = new URL(link!).pathname + new URL(link!).search;
    const verified = await confirmEmail(path, "secret-pass");
    expect(verified.status).toBe(302);
    expect(verified.headers.get("Location")).toBe("/auth");
    expect(cookieFrom(verified, "__Host-toast")).not.toBeNull();
    expect((await db.select().from(users).where(eq(users.email, email)).get())?.emailVerifiedAt).toBeTypeOf("number");

    // The link works once.
    const again = await call(path);
    const toast = await call("/api/viewer", { cookie: cookieFrom(again, "__Host-toast")! });
    expect((await toast.json()) as object).toMatchObject({ toast: { title: "Verification Failed" } });

    expect(await signIn({ email, password: "secret-pass" }, unique("ip"))).toMatch(/^__Host-session=/);
  });

  it("gives the account the keys bought with its address once the link is followed, and only then", async () => {
    const account = await createAccount({ verified: false });
    const codeId = await soldKey(account.email.toUpperCase());
    const expired = "B".repeat(43);
    await storeVerificationToken(account.id, expired, "expired");
    await confirmEmail(`/auth/verify?token=${expired}`, account.password);
    expect(await db.select().from(userSubscriptions).where(eq(userSubscriptions.userId, account.id))).toHaveLength(0);

    const token = "C".repeat(43);
    await storeVerificationToken(account.id, token, "live");
    // Opening the link (a mail scanner does) gives the account nothing yet.
    await call(`/auth/verify?token=${token}`);
    expect(await db.select().from(userSubscriptions).where(eq(userSubscriptions.userId, account.id))).toHaveLength(0);
    const response = await confirmEmail(`/auth/verify?token=${token}`, account.password);
    expect(response.headers.get("Location")).toBe("/auth");
    const toast = await call("/api/viewer", { cookie: cookieFrom(response, "__Host-toast")! });
    expect((await toast.json()) as object).toMatchObject({
      toast: { title: "Email Verified", description: "Your account is ready. You can log in now." },
    });
    const subscriptions = await db.select().from(userSubscriptions).where(eq(userSubscriptions.userId, account.id));
    expect(subscriptions.map((row) => row.productCodeId)).toEqual([codeId]);
  });

  it("answers whose address a link verified, and the same problem for every unusable link", async () => {
    const account = await createAccount({ verified: false });
    const token = "D".repeat(43);
    await storeVerificationToken(account.id, token, "live");
    expect(await verifyEmail(db, token)).toEqual({ ok: true, value: { id: account.id, email: account.email } });
    const unusable = {
      ok: false,
      problem: { code: "not-found", message: "This link is invalid or has expired. Log in to request a new one." },
    };
    for (const again of [token, null, "short", "E".repeat(43)]) expect(await verifyEmail(db, again)).toEqual(unusable);
  });

  it("refuses an expired verification link", async () => {
    const account = await createAccount({ verified: false });
    const token = "A".repeat(43);
    await storeVerificationToken(account.id, token, "expired");
    await confirmEmail(`/auth/verify?token=${token}`, account.password);
    expect((await db.select().from(users).where(eq(users.id, account.id)).get())?.emailVerifiedAt).toBeNull();
  });

  it("re-sends the link to an unverified account, and answers the same for unknown addresses", async () => {
    const account = await createAccount({ verified: false });
    const known = await call("/auth", { form: { intent: "resend", email: account.email }, ip: unique("ip") });
    const unknown = await call("/auth", { form: { intent: "resend", email: `${unique("nobody")}@example.test` }, ip: unique("ip") });
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    const sent = await db.select().from(mailOutbox).where(eq(mailOutbox.toAddress, account.email)).all();
    expect(sent).toHaveLength(1);
  });
});

describe("sign-in", () => {
  it("signs in by e-mail, sets a fresh HttpOnly Secure SameSite=Lax cookie and stores only its hash", async () => {
    const account = await createAccount();
    const response = await call("/auth", {
      form: { intent: "login", emailOrUsername: account.email, password: account.password },
      ip: unique("ip"),
    });
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/");
    const header = response.headers.getSetCookie().find((c) => c.startsWith("__Host-session="))!;
    expect(header).toMatch(/HttpOnly/);
    expect(header).toMatch(/Secure/);
    expect(header).toMatch(/SameSite=Lax/);
    const token = header.split(";")[0]!.split("=")[1]!;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/); // 32 random bytes
    const rows = await db.select().from(sessions).where(eq(sessions.userId, account.id)).all();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.id).toBe(await sha256Hex(token));

    const toast = await call("/api/viewer", { cookie: cookieFrom(response, "__Host-toast")! });
    expect((await toast.json()) as object).toMatchObject({
      toast: { title: "Welcome back!", description: "You've successfully logged in" },
    });
  });

  it("signs in by username (any case), without ever sending the e-mail back", async () => {
    const account = await createAccount();
    const response = await call("/auth", {
      form: { intent: "login", emailOrUsername: account.username.toUpperCase(), password: account.password },
      ip: unique("ip"),
    });
    expect(response.status).toBe(302);
    const viewer = await call("/api/viewer", { cookie: cookieFrom(response, "__Host-session")! });
    expect(((await viewer.json()) as { viewer: { id: string } }).viewer.id).toBe(account.id);
  });

  it("starts a new session at every sign-in", async () => {
    const account = await createAccount();
    const first = await signIn(account, unique("ip"));
    const second = await signIn(account, unique("ip"));
    expect(first).not.toBe(second);
    expect(await db.select().from(sessions).where(eq(sessions.userId, account.id)).all()).toHaveLength(2);
  });

  it("says 'Invalid credentials' for a wrong password or an unknown e-mail", async () => {
    const account = await createAccount();
    for (const emailOrUsername of [account.email, `${unique("ghost")}@example.test`]) {
      const response = await call("/auth", { form: { intent: "login", emailOrUsername, password: "wrong-password" }, ip: unique("ip") });
      expect(response.status).toBe(401);
      expect(cookieFrom(response, "__Host-session")).toBeNull();
      expect(await response.text()).toContain("Invalid credentials");
    }
  });

  it("says 'Username not found or invalid' for an unknown username", async () => {
    const response = await call("/auth", {
      form: { intent: "login", emailOrUsername: unique("ghost"), password: "whatever-1" },
      ip: unique("ip"),
    });
    expect(response.status).toBe(401);
    expect(await response.text()).toContain("Username not found or invalid");
  });

  it("never puts the account's e-mail in a failed username sign-in answer", async () => {
    const account = await createAccount();
    const response = await call("/auth", {
      form: { intent: "login", emailOrUsername: account.username, password: "wrong-password" },
      ip: unique("ip"),
    });
    expect(await response.text()).not.toContain(account.email);
  });

  it("answers each way a sign-in can go as a Result", async () => {
    const account = await createAccount();
    const unverified = await createAccount({ verified: false });
    const attempt = (emailOrUsername: string, password: string) =>
      logIn(db, callerOf(request(unique("ip"))), { emailOrUsername, password });
    expect(await attempt(unique("ghost"), "whatever-1")).toEqual({
      ok: false,
      problem: { code: "unauthenticated", message: "Username not found or invalid" },
    });
    expect(await attempt(account.username, "wrong-password")).toEqual({
      ok: false,
      problem: { code: "unauthenticated", message: "Invalid credentials" },
    });
    expect(await attempt(unverified.email, unverified.password)).toEqual({
      ok: false,
      problem: { code: "forbidden", message: "Please verify your email before logging in. Check your inbox, or send a new link below." },
    });
    const signedIn = await attempt(account.email, account.password);
    // The edge sets the session's token as the browser's cookie.
    expect(signedIn.ok && { secondFactor: signedIn.value.secondFactor, cookie: tokenCookie(signedIn.value.token) }).toMatchObject({
      secondFactor: false,
      cookie: expect.stringMatching(/^__Host-session=/),
    });
  });

  it("titles an unverified sign-in 'Email Not Verified'", async () => {
    const account = await createAccount({ verified: false });
    const response = await call("/auth", {
      form: { intent: "login", emailOrUsername: account.email, password: account.password },
      ip: unique("ip"),
    });
    expect(response.status).toBe(403);
    expect(await response.text()).toContain("Email Not Verified");
  });

  it("runs a full PBKDF2 for an unknown account, exactly as for a wrong password", async () => {
    const account = await createAccount();
    const derive = vi.spyOn(crypto.subtle, "deriveBits");
    await logIn(db, callerOf(request(unique("ip"))), { emailOrUsername: unique("ghost"), password: "wrong-password" });
    await logIn(db, callerOf(request(unique("ip"))), { emailOrUsername: account.username, password: "wrong-password" });
    expect(derive).toHaveBeenCalledTimes(2);
    for (const [params] of derive.mock.calls) expect((params as Pbkdf2Params).iterations).toBe(100_000);
  });
});

describe("returning to the page asked for", () => {
  const login = (account: { email: string; password: string }, cookie?: string) =>
    call("/auth", { form: { intent: "login", emailOrUsername: account.email, password: account.password }, ip: unique("ip"), cookie });

  it("brings a member sent to /auth from a dashboard page back to it, with its query, once", async () => {
    const asked = await call("/dashboard/crypto-tracker?order=CRYPTO-ABC");
    expect(asked.status).toBe(302);
    expect(asked.headers.get("Location")).toBe("/auth");
    const remembered = cookieFrom(asked, "__Host-return-to");
    expect(remembered).not.toBeNull();
    const account = await createAccount();
    const response = await login(account, remembered!);
    expect(response.headers.get("Location")).toBe("/dashboard/crypto-tracker?order=CRYPTO-ABC");
    // The cookie is spent: a later sign-in goes home.
    expect(response.headers.getSetCookie().some((c) => c.startsWith("__Host-return-to=;"))).toBe(true);
  });

  it("remembers the page, not its data, when the navigation asked for its data", async () => {
    const asked = await call("/dashboard/subscriptions.data?_routes=routes%2Fdashboard");
    const response = await login(await createAccount(), cookieFrom(asked, "__Host-return-to")!);
    expect(response.headers.get("Location")).toBe("/dashboard/subscriptions");
  });

  it("goes home instead of anywhere that is not a path on this site", async () => {
    const account = await createAccount();
    for (const forged of [
      "https://evil.example/x",
      "//evil.example/x",
      "/\\evil.example/x",
      "javascript:alert(1)",
      "dashboard",
      "/\u0000x",
    ]) {
      const response = await login(account, `__Host-return-to=${encodeURIComponent(forged)}`);
      expect(response.headers.get("Location"), forged).toBe("/");
    }
    // A broken cookie is no destination either.
    expect((await login(account, "__Host-return-to=%E0%A4%A")).headers.get("Location")).toBe("/");
  });

  it("goes home when the path, once its dot segments are resolved, would name another host", async () => {
    const account = await createAccount();
    const forgeries = [
      "/.//evil.example",
      "/./\\evil.example",
      "/%2e//evil.example",
      "/%2E%2E//evil.example",
      "/a/..//evil.example",
      "/a/%2e%2e//evil.example/x?y=1",
      "/.\\/evil.example",
      "/./%09/evil.example",
      "/.//%2fevil.example",
      "/./%5Cevil.example",
    ];
    for (const forged of forgeries) {
      const response = await login(account, `__Host-return-to=${encodeURIComponent(forged)}`);
      const location = response.headers.get("Location") ?? "";
      // Wherever it goes, a browser reads it as a path on this site.
      expect(new URL(location, ORIGIN).origin, forged).toBe(ORIGIN);
      expect(location, forged).toMatch(/^\/(?![/\\])/);
    }
    // The same, remembered by a signed-out visit: a dashboard URL whose dot segments climb out of it.
    for (const visit of [
      "/dashboard/..//evil.example",
      "/dashboard/%2e%2e//evil.example",
      "/dashboard/./..//evil.example",
      "/dashboard/x/...data",
    ]) {
      const asked = await call(visit);
      const remembered = cookieFrom(asked, "__Host-return-to");
      if (!remembered) continue;
      const location = (await login(account, remembered)).headers.get("Location") ?? "";
      expect(new URL(location, ORIGIN).origin, visit).toBe(ORIGIN);
      expect(location, visit).toMatch(/^\/(?![/\\])/);
    }
  });
});

describe("sign-in throttling", () => {
  it("answers a refused attempt with when to try again", () => {
    expect(throttled(1500, "wrong codes")).toEqual({
      ok: false,
      problem: { code: "rate-limited", message: "Too many wrong codes. Please wait 2 seconds and try again.", retryAfterSeconds: 2 },
    });
    expect(throttled(61_000, "sign-ups from this connection").problem).toMatchObject({
      message: "Too many sign-ups from this connection. Please wait 2 minutes and try again.",
      retryAfterSeconds: 61,
    });
  });

  it("slows down and then stops one client guessing one account, even with the right password", async () => {
    const account = await createAccount();
    const ip = unique("ip");
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      // Let each short slow-down lapse so every guess is counted.
      await db.update(authThrottle).set({ blockedUntil: 0 });
      const response = await call("/auth", { form: { intent: "login", emailOrUsername: account.email, password: `wrong-${i}-pass` }, ip });
      statuses.push(response.status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    // From the fourth failure on, each one imposes a short wait.
    const row = await db
      .select()
      .from(authThrottle)
      .where(eq(authThrottle.key, `account:${account.id}`))
      .get();
    expect(row!.blockedUntil).toBeGreaterThan(Date.now());

    const blocked = await call("/auth", { form: { intent: "login", emailOrUsername: account.email, password: account.password }, ip });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("Retry-After"))).toBeGreaterThan(60);
    const body = await blocked.text();
    expect(body).toContain("Too Many Attempts");
    expect(body).toContain("Too many failed sign-in attempts");
    expect(cookieFrom(blocked, "__Host-session")).toBeNull();
  });

  it("does not lock the owner out: guesses from many clients only slow the account down", async () => {
    const account = await createAccount();
    for (let i = 0; i < 10; i++) {
      await db
        .update(authThrottle)
        .set({ blockedUntil: 0 })
        .where(eq(authThrottle.key, `account:${account.id}`));
      const response = await call("/auth", {
        form: { intent: "login", emailOrUsername: account.email, password: `guess-${i}-pass` },
        ip: unique("bot"),
      });
      expect(response.status).toBe(401);
    }
    const accountRow = await db
      .select()
      .from(authThrottle)
      .where(eq(authThrottle.key, `account:${account.id}`))
      .get();
    // The per-account slow-down is capped at a minute.
    expect(accountRow!.blockedUntil - Date.now()).toBeLessThanOrEqual(60_000);
    await db
      .update(authThrottle)
      .set({ blockedUntil: 0 })
      .where(eq(authThrottle.key, `account:${account.id}`));
    expect(await signIn(account, unique("owner"))).toMatch(/^__Host-session=/);
  });

  it("lets the blocked client back in once the lockout has passed", async () => {
    const account = await createAccount();
    const ip = unique("ip");
    for (let i = 0; i < 5; i++) {
      await db.update(authThrottle).set({ blockedUntil: 0 });
      await call("/auth", { form: { intent: "login", emailOrUsername: account.email, password: `wrong-${i}-pass` }, ip });
    }
    expect(
      (await call("/auth", { form: { intent: "login", emailOrUsername: account.email, password: account.password }, ip })).status,
    ).toBe(429);
    await db.update(authThrottle).set({ blockedUntil: Date.now() - 1 });
    expect(await signIn(account, ip)).toMatch(/^__Host-session=/);
  });

  it("forgets counters idle for over an hour once they no longer block, and keeps every other one", async () => {
    const now = Date.now();
    const hour = 60 * 60_000;
    const row = (name: string, lastFailureAt: number, blockedUntil: number) => ({
      key: `client:${unique(name)}`,
      failures: 20,
      lastFailureAt,
      blockedUntil,
    });
    const idle = row("idle", now - hour - 1, now - 1);
    const recent = row("recent", now - hour + 60_000, 0);
    const stillBlocked = row("blocked", now - hour - 1, now + 60_000);
    await db.insert(authThrottle).values([idle, recent, stillBlocked]);
    await runScheduledJobs(env, now);
    const left = await db
      .select({ key: authThrottle.key })
      .from(authThrottle)
      .where(inArray(authThrottle.key, [idle.key, recent.key, stillBlocked.key]));
    expect(left.map((r) => r.key).sort()).toEqual([recent.key, stillBlocked.key].sort());
  });

  it("counts parallel guesses before checking them, so a burst cannot slip past the lockout", async () => {
    const account = await createAccount();
    const ip = unique("ip");
    const guesses = Array.from({ length: 30 }, (_, i) =>
      call("/auth", {
        form: { intent: "login", emailOrUsername: account.email, password: i === 29 ? account.password : `burst-${i}-pass` },
        ip,
      }),
    );
    const statuses = (await Promise.all(guesses)).map((r) => r.status);
    // The account allows three quick tries before it slows down; the rest of the burst is refused.
    expect(statuses.filter((s) => s !== 429).length).toBeLessThanOrEqual(4);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(26);
  });

  it("does not block the address again when a sign-in succeeds after a lapsed lockout", async () => {
    const ip = unique("ip");
    for (let i = 0; i < 20; i++)
      await call("/auth", { form: { intent: "login", emailOrUsername: unique("nobody"), password: "password1" }, ip });
    const key = `client:${ip}`;
    expect((await db.select().from(authThrottle).where(eq(authThrottle.key, key)).get())!.blockedUntil).toBeGreaterThan(Date.now());
    // Sixteen minutes later the block has lapsed; the count has not (it decays after an hour).
    await db
      .update(authThrottle)
      .set({ blockedUntil: Date.now() - 60_000 })
      .where(eq(authThrottle.key, key));
    const first = await createAccount();
    const second = await createAccount();
    expect(await signIn(first, ip)).toMatch(/^__Host-session=/);
    expect((await db.select().from(authThrottle).where(eq(authThrottle.key, key)).get())!.blockedUntil).toBeLessThanOrEqual(Date.now());
    expect(await signIn(second, ip)).toMatch(/^__Host-session=/);
    // A further failure still blocks the address.
    const failure = await call("/auth", { form: { intent: "login", emailOrUsername: second.email, password: "wrong-pass-1" }, ip });
    expect(failure.status).toBe(401);
    expect((await call("/auth", { form: { intent: "login", emailOrUsername: first.email, password: first.password }, ip })).status).toBe(
      429,
    );
  });

  it("takes nothing from the address for an attempt the account's slow-down refused", async () => {
    const account = await createAccount();
    await db
      .insert(authThrottle)
      .values({ key: `account:${account.id}`, failures: 7, lastFailureAt: Date.now(), blockedUntil: Date.now() + 30_000 });
    const ip = unique("ip");
    for (let i = 0; i < 3; i++) {
      expect(
        (await call("/auth", { form: { intent: "login", emailOrUsername: account.email, password: account.password }, ip })).status,
      ).toBe(429);
    }
    expect(
      (
        await db
          .select()
          .from(authThrottle)
          .where(eq(authThrottle.key, `client:${ip}`))
          .get()
      )?.failures ?? 0,
    ).toBe(0);
  });

  it("does not count successful sign-ins against a shared address", async () => {
    const ip = unique("office");
    const accounts = await Promise.all(Array.from({ length: 22 }, () => createAccount()));
    for (const account of accounts) {
      const response = await call("/auth", { form: { intent: "login", emailOrUsername: account.email, password: account.password }, ip });
      expect(response.status).toBe(302);
    }
    expect(
      (
        await db
          .select()
          .from(authThrottle)
          .where(eq(authThrottle.key, `client:${ip}`))
          .get()
      )?.failures ?? 0,
    ).toBe(0);
  });

  it("allows twenty sign-up attempts an hour from one address", async () => {
    const ip = unique("ip");
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) {
      const username = unique("su").slice(0, 20);
      const response = await call("/auth", {
        form: { intent: "signup", username, email: `${username}@example.test`, password: "secret-pass" },
        ip,
      });
      statuses.push(response.status);
    }
    expect(statuses.slice(0, 20).every((s) => s === 200)).toBe(true);
    expect(statuses[20]).toBe(429);
  });

  it("stops one client spraying many accounts", async () => {
    const ip = unique("ip");
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) {
      const response = await call("/auth", { form: { intent: "login", emailOrUsername: unique("spray"), password: "password1" }, ip });
      statuses.push(response.status);
    }
    expect(statuses.slice(0, 20).every((s) => s === 401)).toBe(true);
    expect(statuses[20]).toBe(429);
  });
});

describe("sessions", () => {
  it("ends a session after 7 idle days and deletes its row", async () => {
    const account = await createAccount();
    const cookie = await signIn(account, unique("ip"));
    await db
      .update(sessions)
      .set({ lastSeenAt: Date.now() - 7 * 86_400_000 - 1000 })
      .where(eq(sessions.userId, account.id));
    const response = await call("/api/viewer", { cookie });
    expect(((await response.json()) as { viewer: unknown }).viewer).toBeNull();
    expect(await db.select().from(sessions).where(eq(sessions.userId, account.id)).all()).toHaveLength(0);
  });

  it("ends a session after 30 days however active it is", async () => {
    const account = await createAccount();
    const cookie = await signIn(account, unique("ip"));
    await db
      .update(sessions)
      .set({ lastSeenAt: Date.now(), expiresAt: Date.now() - 1 })
      .where(eq(sessions.userId, account.id));
    const response = await call("/dashboard", { cookie });
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/auth");
  });

  it("renews the idle timer of an active session", async () => {
    const account = await createAccount();
    const cookie = await signIn(account, unique("ip"));
    const twoHoursAgo = Date.now() - 2 * 3_600_000;
    await db.update(sessions).set({ lastSeenAt: twoHoursAgo }).where(eq(sessions.userId, account.id));
    await call("/api/viewer", { cookie });
    const row = await db.select().from(sessions).where(eq(sessions.userId, account.id)).get();
    expect(row!.lastSeenAt).toBeGreaterThan(twoHoursAgo);
  });

  it("ignores a forged or unknown session cookie", async () => {
    const response = await call("/api/viewer", { cookie: `__Host-session=${"x".repeat(43)}` });
    expect(((await response.json()) as { viewer: unknown }).viewer).toBeNull();
  });

  it("logs out: deletes the session row, clears the cookie and says so", async () => {
    const account = await createAccount();
    const cookie = await signIn(account, unique("ip"));
    const response = await call("/auth/logout", { method: "POST", cookie });
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/");
    expect(response.headers.getSetCookie().find((c) => c.startsWith("__Host-session="))).toMatch(/Max-Age=0/);
    expect(await db.select().from(sessions).where(eq(sessions.userId, account.id)).all()).toHaveLength(0);
    // The old cookie is worthless now.
    expect((await call("/dashboard", { cookie })).status).toBe(302);
    const toast = await call("/api/viewer", { cookie: cookieFrom(response, "__Host-toast")! });
    expect((await toast.json()) as object).toMatchObject({ toast: { title: "Logged out", description: "Successfully signed out" } });
  });
});
