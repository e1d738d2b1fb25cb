// Sessions a member controls: the list on the Security page, ending one or all the others, a new
// password ending the rest, and chat sockets closing the moment their session ends.
import { env, exports } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { parseServerFrame, SESSION_ENDED_CLOSE } from "~/lib/chat";
import { describeDevice } from "~/server/accounts/device.server";
import { runScheduledJobs } from "~/server/jobs/cron.server";
import { auditLog, sessions } from "~/server/platform/db/schema.server";
import { call, cookieFrom, createAccount, db, ORIGIN, type TestAccount, unique } from "../helpers";

const FIREFOX_LINUX = "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0";
const CHROME_WINDOWS = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36";

async function signInFrom(account: TestAccount, userAgent = CHROME_WINDOWS): Promise<string> {
  const response = await call("/auth", {
    form: { intent: "login", emailOrUsername: account.email, password: account.password },
    ip: unique("ip"),
    headers: { "User-Agent": userAgent },
  });
  const cookie = cookieFrom(response, "__Host-session");
  if (response.status !== 302 || !cookie) throw new Error(`sign-in failed with ${response.status}`);
  return cookie;
}

/** Whether a session cookie still opens the dashboard (a signed-out one is sent to /auth). */
async function signedIn(cookie: string): Promise<boolean> {
  const response = await call("/dashboard", { cookie });
  if (response.status === 200) return true;
  expect(response.headers.get("Location")).toBe("/auth");
  return false;
}

const security = (cookie: string, form: Record<string, string>, ip?: string) => call("/dashboard/security", { cookie, form, ip });

async function publicIds(userId: string): Promise<string[]> {
  const rows = await db
    .select({ publicId: sessions.publicId })
    .from(sessions)
    .where(eq(sessions.userId, userId))
    .orderBy(sessions.createdAt);
  return rows.map((r) => r.publicId);
}

/**
 * A chat socket opened with `cookie`, and a promise of the code it is closed with once the room has
 * said that its session ended (a close without that frame first does not count).
 */
async function chatSocket(cookie: string): Promise<{ ws: WebSocket; closed: Promise<number> }> {
  const response = await exports.default.fetch(
    new Request(`${ORIGIN}/chat/ws`, { headers: { Upgrade: "websocket", Origin: ORIGIN, Cookie: cookie } }),
  );
  expect(response.status).toBe(101);
  const ws = response.webSocket!;
  let told = false;
  ws.addEventListener("message", (event) => {
    if (parseServerFrame(event.data)?.type === "session-ended") told = true;
  });
  const closed = new Promise<number>((resolve) => ws.addEventListener("close", (event) => resolve(told ? event.code : -1)));
  ws.accept();
  return { ws, closed };
}

/** Whether the socket still works: a message sent on it comes back from the room, rather than a close. */
function stillWorks(socket: { ws: WebSocket; closed: Promise<number> }): Promise<boolean> {
  const content = unique("still here");
  const echoed = new Promise<boolean>((resolve) =>
    socket.ws.addEventListener("message", (event) => {
      const frame = parseServerFrame(event.data);
      if (frame?.type === "message" && frame.message.content === content) resolve(true);
    }),
  );
  socket.ws.send(JSON.stringify({ type: "send", content }));
  return Promise.race([echoed, socket.closed.then(() => false)]);
}

describe("the sessions list", () => {
  it("shows each of the member's sessions with its device, and marks this one", async () => {
    const account = await createAccount();
    const mine = await signInFrom(account, FIREFOX_LINUX);
    await signInFrom(account, CHROME_WINDOWS);
    await signInFrom(
      await createAccount(),
      "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1",
    );
    const page = await (await call("/dashboard/security", { cookie: mine })).text();
    expect(page).toContain("Firefox on Linux");
    expect(page).toContain("Chrome on Windows");
    // Another member's session is not listed.
    expect(page).not.toContain("Safari on iOS");
    expect(page.match(/This device/g)).toHaveLength(1);
    expect(page).not.toContain((await db.select({ id: sessions.id }).from(sessions).where(eq(sessions.userId, account.id)).get())!.id);
  });

  it("names devices by browser and system, and admits when it cannot", () => {
    expect(describeDevice(FIREFOX_LINUX)).toBe("Firefox on Linux");
    expect(describeDevice(CHROME_WINDOWS)).toBe("Chrome on Windows");
    expect(
      describeDevice(
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36 Edg/142.0.0.0",
      ),
    ).toBe("Edge on macOS");
    expect(
      describeDevice("Mozilla/5.0 (Linux; Android 15) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Mobile Safari/537.36"),
    ).toBe("Chrome on Android");
    expect(describeDevice("curl/8.0")).toBe("Unknown device");
    expect(describeDevice(null)).toBe("Unknown device");
  });
});

describe("ending sessions", () => {
  it("signs out one other session; this one stays", async () => {
    const account = await createAccount();
    const here = await signInFrom(account);
    const there = await signInFrom(account);
    const [, thereId] = await publicIds(account.id);
    const response = await security(here, { intent: "end-session", session: thereId! });
    expect(response.status).toBe(200);
    expect(await signedIn(there)).toBe(false);
    expect(await signedIn(here)).toBe(true);
    expect(await security(here, { intent: "end-session", session: thereId! }).then((r) => r.status)).toBe(404);
  });

  it("never ends another member's session", async () => {
    const victim = await createAccount();
    const victimCookie = await signInFrom(victim);
    const [victimSession] = await publicIds(victim.id);
    const attacker = await signInFrom(await createAccount());
    expect((await security(attacker, { intent: "end-session", session: victimSession! })).status).toBe(404);
    expect(await signedIn(victimCookie)).toBe(true);
  });

  it("signs this browser out when the session ended is its own", async () => {
    const account = await createAccount();
    const here = await signInFrom(account);
    const [hereId] = await publicIds(account.id);
    const response = await security(here, { intent: "end-session", session: hereId! });
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/");
    expect(cookieFrom(response, "__Host-session")).toBe("__Host-session=");
    expect(await signedIn(here)).toBe(false);
  });

  it("signs out everywhere else, keeps this session and records who did it from where", async () => {
    const account = await createAccount();
    const here = await signInFrom(account);
    const elsewhere = [await signInFrom(account), await signInFrom(account)];
    const ip = unique("ip");
    const response = await security(here, { intent: "end-other-sessions" }, ip);
    expect(response.status).toBe(200);
    for (const cookie of elsewhere) expect(await signedIn(cookie)).toBe(false);
    expect(await signedIn(here)).toBe(true);
    expect(await publicIds(account.id)).toHaveLength(1);
    const entry = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.actorUserId, account.id), eq(auditLog.action, "session.end-others")))
      .get();
    expect(entry).toMatchObject({ ip, subject: account.id });
    expect(JSON.parse(entry!.detail!)).toEqual({ ended: 2 });
  });

  it("refuses a malformed session name or an unknown request", async () => {
    const here = await signInFrom(await createAccount());
    expect((await security(here, { intent: "end-session", session: "x" })).status).toBe(400);
    expect((await security(here, { intent: "end-everything" })).status).toBe(400);
  });

  it("needs a session to do any of it", async () => {
    const response = await call("/dashboard/security", { form: { intent: "end-other-sessions" } });
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/auth");
  });
});

describe("changing the password", () => {
  it("asks for the current password and counts wrong ones like failed sign-ins", async () => {
    const account = await createAccount();
    const here = await signInFrom(account);
    const ip = unique("ip");
    const wrong = await security(here, { intent: "change-password", currentPassword: "not-it", newPassword: "brand-new-pass" }, ip);
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain("currentPassword");
    for (let i = 0; i < 3; i++)
      await security(here, { intent: "change-password", currentPassword: "not-it", newPassword: "brand-new-pass" }, ip);
    const blocked = await security(
      here,
      { intent: "change-password", currentPassword: account.password, newPassword: "brand-new-pass" },
      ip,
    );
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(await signInFrom({ ...account, password: "brand-new-pass" }).catch(() => "refused")).toBe("refused");
  });

  it("applies the sign-up rules to the new password", async () => {
    const account = await createAccount();
    const here = await signInFrom(account);
    const response = await security(here, { intent: "change-password", currentPassword: account.password, newPassword: "12345" });
    expect(response.status).toBe(400);
    expect(await signInFrom(account)).toBeTruthy();
  });

  it("takes the new password, drops the old one and ends every other session", async () => {
    const account = await createAccount();
    const here = await signInFrom(account);
    const elsewhere = await signInFrom(account);
    const response = await security(
      here,
      { intent: "change-password", currentPassword: account.password, newPassword: "brand-new-pass" },
      unique("ip"),
    );
    expect(response.status).toBe(200);
    expect(await signedIn(elsewhere)).toBe(false);
    expect(await signedIn(here)).toBe(true);
    expect(await signInFrom(account).catch(() => "refused")).toBe("refused");
    expect(await signInFrom({ ...account, password: "brand-new-pass" })).toBeTruthy();
    expect(
      await db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.actorUserId, account.id), eq(auditLog.action, "password.change")))
        .get(),
    ).toBeTruthy();
  });
});

describe("chat sockets of ended sessions", () => {
  it("close as soon as the member logs out", async () => {
    const cookie = await signInFrom(await createAccount());
    const socket = await chatSocket(cookie);
    const logout = await call("/auth/logout", { method: "POST", cookie });
    expect(logout.status).toBe(302);
    expect(await socket.closed).toBe(SESSION_ENDED_CLOSE);
  });

  it("close for the sessions signed out elsewhere, and only for those", async () => {
    const account = await createAccount();
    const here = await signInFrom(account);
    const there = await signInFrom(account);
    const hereSocket = await chatSocket(here);
    const thereSocket = await chatSocket(there);
    await security(here, { intent: "end-other-sessions" });
    expect(await thereSocket.closed).toBe(SESSION_ENDED_CLOSE);
    expect(await stillWorks(hereSocket)).toBe(true);
    hereSocket.ws.close();
  });

  it("close when a session expires and the scheduled clean-up removes it", async () => {
    const account = await createAccount();
    const socket = await chatSocket(await signInFrom(account));
    await db
      .update(sessions)
      .set({ expiresAt: Date.now() - 1 })
      .where(eq(sessions.userId, account.id));
    await runScheduledJobs(env);
    expect(await socket.closed).toBe(SESSION_ENDED_CLOSE);
  });

  it("refuse to reopen once the session has ended", async () => {
    const account = await createAccount();
    const cookie = await signInFrom(account);
    await call("/auth/logout", { method: "POST", cookie });
    const response = await exports.default.fetch(
      new Request(`${ORIGIN}/chat/ws`, { headers: { Upgrade: "websocket", Origin: ORIGIN, Cookie: cookie } }),
    );
    expect(response.status).toBe(401);
  });
});
