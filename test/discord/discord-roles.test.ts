// Discord roles that follow the licence, against the simulated Discord (its real shapes and error
// codes): what a member ends up holding in the guild after purchases, refunds, expiries, bans and
// the failures Discord is known for.
import { env } from "cloudflare:workers";
import { eq, sql } from "drizzle-orm";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { joinGuild, leaveGuild, rateLimitNext, removeRoleByHand, setBotRoleLow, simulatedGuild } from "~/server/discord/dev-discord.server";
import { checkGuildHealth, queueReconcile } from "~/server/discord/reconcile.server";
import { MEMBERS_PER_RECONCILE } from "~/server/platform/job-registry.server";
import { addRoleRule, discordSetup, roleSettings, saveGuild } from "~/server/discord/role-setup.server";
import { simulatedDiscordIdOf } from "~/server/discord/role-link.server";
import { SIMULATED_GUILD_ID, SIMULATED_ROLES } from "~/server/discord/simulated-discord.server";
import { recordDiscordLink } from "~/server/accounts/discord-login.server";
import { retryDeadJob } from "~/server/jobs/job-consumer.server";
import {
  auditLog,
  discordRoleReleases,
  discordRoleRules,
  discordRoleSync,
  discordSettings,
  failedJobs,
  licences,
  oauthAccounts,
  productCodes,
  simulatedDiscordFaults,
} from "~/server/platform/db/schema.server";
import { deadJobs } from "~/server/platform/job-queue.server";
import {
  boughtKey,
  call,
  createAccount,
  db,
  deliver,
  hwid,
  nextId,
  paidOrderPayload,
  runQueue,
  signIn,
  type TestAccount,
  validate,
} from "../helpers";

const QUEUE = "keyshop-jobs";
const { subscriber: SUBSCRIBER, vip: VIP } = SIMULATED_ROLES;

/** A Discord user id nobody else in the run has. */
const discordId = () => String(1_200_000_000_000_000_000n + BigInt(nextId()));

let staff: TestAccount;

beforeEach(async () => {
  staff = await createAccount({ admin: true });
  await db.delete(discordRoleRules);
  await saveGuild(db, staff.id, SIMULATED_GUILD_ID);
  // "Subscriber" for any active licence, "VIP" for monthly and lifetime.
  for (const rule of [
    { grant: "any", roleId: SUBSCRIBER },
    { grant: "monthly", roleId: VIP },
    { grant: "lifetime", roleId: VIP },
  ]) {
    expect((await addRoleRule({ db, setup: discordSetup(env, db) }, staff.id, rule)).ok).toBe(true);
  }
  await setBotRoleLow(db, false);
  await rateLimitNext(db, 0, 1, false);
}, 30_000);

/** A member who linked Discord and, unless told otherwise, is in the guild. */
async function linkedMember({ inGuild = true } = {}) {
  const account = await createAccount();
  const id = discordId();
  await db
    .insert(oauthAccounts)
    .values({ provider: "discord", providerUserId: id, providerUsername: account.username, userId: account.id, createdAt: Date.now() });
  if (inGuild) await joinGuild(db, id, account.username);
  return { ...account, discordId: id };
}

async function rolesInGuild(id: string): Promise<string[] | null> {
  const member = (await simulatedGuild(db)).members.find((candidate) => candidate.userId === id);
  return member ? member.roles.toSorted() : null;
}

/** Waits until the guild shows `roles` for the Discord user `id` (the queue runs the sync). */
async function expectRoles(id: string, roles: string[]) {
  await vi.waitFor(async () => expect(await rolesInGuild(id)).toEqual(roles.toSorted()), { timeout: 15_000, interval: 50 });
}

const syncRow = (userId: string) => db.select().from(discordRoleSync).where(eq(discordRoleSync.userId, userId)).get();
const requestsSoFar = async () => (await db.select({ n: simulatedDiscordFaults.requests }).from(simulatedDiscordFaults).get())!.n;
const sync = (userId: string) => runQueue(QUEUE, [{ kind: "discord-sync", userId }]);

describe("roles follow the licence", () => {
  it("grants Subscriber and VIP when a linked member buys a monthly plan, and audits it", async () => {
    const member = await linkedMember();
    await boughtKey("30 Days", member.email);
    await expectRoles(member.discordId, [SUBSCRIBER, VIP]);
    const granted = await db
      .select({ detail: auditLog.detail })
      .from(auditLog)
      .where(sql`${auditLog.action} = 'discord.role.grant' and ${auditLog.subject} = ${member.id}`);
    expect(granted).toHaveLength(2);
    await vi.waitFor(async () => expect((await syncRow(member.id))?.state).toBe("synced"));
  });

  it("grants only Subscriber for a weekly plan, and nothing to a buyer without a licence", async () => {
    const member = await linkedMember();
    const stranger = await linkedMember();
    await boughtKey("1 Week", member.email);
    await expectRoles(member.discordId, [SUBSCRIBER]);
    await sync(stranger.id);
    expect(await rolesInGuild(stranger.discordId)).toEqual([]);
  });

  it("takes the roles back when the order is refunded", async () => {
    const member = await linkedMember();
    const bought = await boughtKey("30 Days", member.email);
    await expectRoles(member.discordId, [SUBSCRIBER, VIP]);
    await deliver("refunds/create", {
      id: nextId(),
      order_id: bought.orderId,
      refund_line_items: [{ line_item_id: bought.lineId, quantity: 1 }],
    });
    await expectRoles(member.discordId, []);
  });

  it("keeps the role through a renewal of the same key, and gives it back at once to a licence renewed after it ended", async () => {
    const member = await linkedMember();
    const { key } = await boughtKey("1 Week", member.email);
    expect((await validate({ key, hwid: hwid(), nonce: crypto.randomUUID() })).json.code).toBe("VALID");
    await expectRoles(member.discordId, [SUBSCRIBER]);
    const licence = (await db.select().from(licences).where(eq(licences.key, key)).get())!;
    const renew = () =>
      deliver("orders/paid", {
        ...paidOrderPayload({ variant: nextId(), variantTitle: "1 Week", price: "29.99" }, { email: member.email }),
        note_attributes: [{ name: "_renews_licence", value: String(licence.id) }],
      });
    await renew();
    await sync(member.id);
    expect(await rolesInGuild(member.discordId)).toEqual([SUBSCRIBER]);
    const removals = () =>
      db
        .select()
        .from(auditLog)
        .where(sql`${auditLog.action} = 'discord.role.remove' and ${auditLog.subject} = ${member.id}`)
        .all();
    expect(await removals()).toHaveLength(0);
    // It ends (the sweep takes the role), then is renewed: the renewal's own sync gives the role back.
    await db
      .update(licences)
      .set({ expiresAt: Date.now() - 1000 })
      .where(eq(licences.id, licence.id));
    await sync(member.id);
    expect(await rolesInGuild(member.discordId)).toEqual([]);
    await renew();
    await expectRoles(member.discordId, [SUBSCRIBER]);
    // Still the one key: the renewals extended it, nothing else was handed out.
    expect(await db.select().from(licences).where(eq(licences.ownerEmail, member.email)).all()).toMatchObject([{ id: licence.id, key }]);
  });

  it("keeps a role another active licence still justifies", async () => {
    const member = await linkedMember();
    const monthly = await boughtKey("30 Days", member.email);
    await boughtKey("1 Week", member.email);
    await expectRoles(member.discordId, [SUBSCRIBER, VIP]);
    await deliver("refunds/create", {
      id: nextId(),
      order_id: monthly.orderId,
      refund_line_items: [{ line_item_id: monthly.lineId, quantity: 1 }],
    });
    await expectRoles(member.discordId, [SUBSCRIBER]);
  });

  it("notices an expiry, a revocation and a ban at the next sweep", async () => {
    const expired = await linkedMember();
    const revoked = await linkedMember();
    const banned = await linkedMember();
    for (const member of [expired, revoked, banned]) {
      await boughtKey("1 Week", member.email);
      await expectRoles(member.discordId, [SUBSCRIBER]);
    }
    await db
      .update(licences)
      .set({ activatedAt: Date.now() - 8 * 86_400_000, expiresAt: Date.now() - 1000 })
      .where(eq(licences.ownerEmail, expired.email));
    await db.update(licences).set({ revokedAt: Date.now() }).where(eq(licences.ownerEmail, revoked.email));
    const banning = await call(`/dashboard/customers/${banned.id}`, {
      form: { intent: "ban", reason: "Chargeback" },
      cookie: await signIn(staff),
    });
    expect(banning.status).toBe(200);
    await queueReconcile({ db, queue: env.JOB_QUEUE });
    for (const member of [expired, revoked, banned]) await expectRoles(member.discordId, []);
  }, 60_000);

  it("takes the roles back when staff revoke the key, ban it, or the order is cancelled", async () => {
    const [revoked, banned, cancelled] = [await linkedMember(), await linkedMember(), await linkedMember()];
    const bought = new Map<string, Awaited<ReturnType<typeof boughtKey>>>();
    for (const member of [revoked, banned, cancelled]) {
      bought.set(member.id, await boughtKey("30 Days", member.email));
      await expectRoles(member.discordId, [SUBSCRIBER, VIP]);
    }
    const cookie = await signIn(staff);
    const code = await db
      .select({ id: productCodes.id })
      .from(productCodes)
      .where(eq(productCodes.code, bought.get(revoked.id)!.key))
      .get();
    const revoking = await call(`/dashboard/orders/shopify/${bought.get(revoked.id)!.orderId}`, {
      form: { intent: "revoke", key: `c${code!.id}`, reason: "Chargeback" },
      cookie,
    });
    expect(revoking.status).toBe(200);
    const licence = await db
      .select({ id: licences.id })
      .from(licences)
      .where(eq(licences.key, bought.get(banned.id)!.key))
      .get();
    expect(
      (await call("/dashboard/licences", { form: { intent: "ban-key", licenceId: String(licence!.id), reason: "Cheating" }, cookie }))
        .status,
    ).toBe(200);
    const order = bought.get(cancelled.id)!.order;
    await deliver("orders/cancelled", { ...order, cancelled_at: new Date().toISOString() });
    await queueReconcile({ db, queue: env.JOB_QUEUE });
    for (const member of [revoked, banned, cancelled]) await expectRoles(member.discordId, []);
  }, 60_000);

  it("puts back a role someone removed by hand", async () => {
    const member = await linkedMember();
    await boughtKey("30 Days", member.email);
    await expectRoles(member.discordId, [SUBSCRIBER, VIP]);
    await removeRoleByHand(db, member.discordId, VIP);
    expect(await rolesInGuild(member.discordId)).toEqual([SUBSCRIBER]);
    await runQueue(QUEUE, [{ kind: "discord-reconcile", userIds: [member.id] }]);
    await expectRoles(member.discordId, [SUBSCRIBER, VIP]);
  });

  it("never touches roles the rules do not hand out", async () => {
    const member = await linkedMember();
    const ownRole = "1100000000000000099";
    await db.run(sql`update simulated_discord_members set roles = ${JSON.stringify([ownRole, VIP])} where user_id = ${member.discordId}`);
    await sync(member.id);
    // No licence: VIP goes, the role staff gave by hand for something else stays.
    expect(await rolesInGuild(member.discordId)).toEqual([ownRole]);
  });

  it("takes the roles back when the member unlinks Discord", async () => {
    const member = await linkedMember();
    await boughtKey("1 Week", member.email);
    await expectRoles(member.discordId, [SUBSCRIBER]);
    await db.delete(oauthAccounts).where(eq(oauthAccounts.userId, member.id));
    await sync(member.id);
    expect(await rolesInGuild(member.discordId)).toEqual([]);
    expect(await syncRow(member.id)).toBeUndefined();
  });
});

describe("a member who links another Discord account", () => {
  const unlinkPage = (cookie: string) => call("/dashboard/security", { form: { intent: "unlink-discord" }, cookie });
  const removalsFrom = async (userId: string, discordId: string) =>
    (
      await db
        .select({ detail: auditLog.detail })
        .from(auditLog)
        .where(sql`${auditLog.action} = 'discord.role.remove' and ${auditLog.subject} = ${userId}`)
    ).filter((entry) => (JSON.parse(entry.detail ?? "{}") as { discordId?: string }).discordId === discordId);
  const releasesOf = (userId: string) => db.select().from(discordRoleReleases).where(eq(discordRoleReleases.userId, userId));

  it("takes the shop's roles back from the account linked before, audited, and gives them to the new one", async () => {
    const member = await linkedMember();
    const cookie = await signIn(member);
    await boughtKey("30 Days", member.email);
    await expectRoles(member.discordId, [SUBSCRIBER, VIP]);
    expect((await unlinkPage(cookie)).status).toBe(200);
    expect(
      (await call("/dashboard/security", { form: { intent: "link-simulated-discord", password: member.password }, cookie })).status,
    ).toBe(200);
    const next = await simulatedDiscordIdOf(member.id);
    await expectRoles(next, [SUBSCRIBER, VIP]);
    await expectRoles(member.discordId, []);
    await vi.waitFor(async () => expect(await removalsFrom(member.id, member.discordId)).toHaveLength(2));
    await vi.waitFor(async () => expect(await syncRow(member.id)).toMatchObject({ discordId: next, state: "synced" }));
    expect(await releasesOf(member.id)).toEqual([]);
  });

  it("releases the old account when the link changed before any sync ran, one job per account, and a replay changes nothing", async () => {
    const member = await linkedMember();
    await boughtKey("30 Days", member.email);
    await expectRoles(member.discordId, [SUBSCRIBER, VIP]);
    await vi.waitFor(async () => expect((await syncRow(member.id))?.state).toBe("synced"));
    // Unlinked and linked to another account with no sync in between.
    const next = discordId();
    await joinGuild(db, next, member.username);
    await db.delete(oauthAccounts).where(eq(oauthAccounts.userId, member.id));
    await db
      .insert(oauthAccounts)
      .values({ provider: "discord", providerUserId: next, providerUsername: "next", userId: member.id, createdAt: Date.now() });
    const sent = vi.spyOn(env.JOB_QUEUE, "sendBatch");
    await sync(member.id);
    // This job took the old account's two roles and sent the new account's sync as a job of its own.
    expect(await rolesInGuild(member.discordId)).toEqual([]);
    expect(sent.mock.calls.flatMap(([messages]) => [...messages].map((message) => message.body))).toEqual([
      { kind: "discord-sync", userId: member.id },
    ]);
    sent.mockRestore();
    await expectRoles(next, [SUBSCRIBER, VIP]);
    await vi.waitFor(async () => expect(await syncRow(member.id)).toMatchObject({ discordId: next, state: "synced" }));
    expect(await removalsFrom(member.id, member.discordId)).toHaveLength(2);
    const audits = (await db.select().from(auditLog).where(eq(auditLog.subject, member.id))).length;
    await sync(member.id);
    await sync(member.id);
    expect(await rolesInGuild(member.discordId)).toEqual([]);
    expect(await rolesInGuild(next)).toEqual([SUBSCRIBER, VIP].toSorted());
    expect((await db.select().from(auditLog).where(eq(auditLog.subject, member.id))).length).toBe(audits);
  });

  it("waits out a 429 on the old account without losing the release, and the sweep finishes it", async () => {
    const member = await linkedMember();
    await boughtKey("1 Week", member.email);
    await expectRoles(member.discordId, [SUBSCRIBER]);
    const next = discordId();
    await db.delete(oauthAccounts).where(eq(oauthAccounts.userId, member.id));
    await db
      .insert(oauthAccounts)
      .values({ provider: "discord", providerUserId: next, providerUsername: "next", userId: member.id, createdAt: Date.now() });
    await rateLimitNext(db, 1, 3600, false);
    await sync(member.id);
    expect(await rolesInGuild(member.discordId)).toEqual([SUBSCRIBER]);
    expect(await releasesOf(member.id)).toEqual([expect.objectContaining({ discordId: member.discordId })]);
    const row = await syncRow(member.id);
    expect(row).toMatchObject({ state: "retrying", attempts: 0, nextAttemptAt: expect.any(Number) });
    await queueReconcile({ db, queue: env.JOB_QUEUE }, row!.nextAttemptAt! + 1);
    await expectRoles(member.discordId, []);
    await vi.waitFor(async () => expect(await releasesOf(member.id)).toEqual([]));
  });

  it("links a Discord account to one shop account only, and never takes roles the member who links it next is owed", async () => {
    const first = await linkedMember();
    const second = await createAccount();
    await boughtKey("1 Week", first.email);
    await boughtKey("30 Days", second.email);
    await expectRoles(first.discordId, [SUBSCRIBER]);
    const deps = { db, mail: env, waitUntil: () => {} };
    expect(await recordDiscordLink(deps, second.id, { id: first.discordId, username: "taken" }, null)).toMatchObject({
      ok: false,
      problem: { code: "conflict" },
    });
    await expect(
      db.insert(oauthAccounts).values({
        provider: "discord",
        providerUserId: first.discordId,
        providerUsername: "taken",
        userId: second.id,
        createdAt: Date.now(),
      }),
    ).rejects.toThrow();
    expect(await db.select().from(oauthAccounts).where(eq(oauthAccounts.userId, second.id))).toEqual([]);
    expect(await rolesInGuild(first.discordId)).toEqual([SUBSCRIBER]);

    // The first member lets the account go and the second links it before the first one's sync runs.
    await db.delete(oauthAccounts).where(eq(oauthAccounts.userId, first.id));
    expect((await recordDiscordLink(deps, second.id, { id: first.discordId, username: "taken" }, null)).ok).toBe(true);
    await sync(first.id);
    expect(await syncRow(first.id)).toBeUndefined();
    await expectRoles(first.discordId, [SUBSCRIBER, VIP]);
    expect(await removalsFrom(first.id, first.discordId)).toEqual([]);
  });
});

describe("what Discord throws at the sync", () => {
  it("parks a member who is not in the server, and gives the roles when they join", async () => {
    const member = await linkedMember({ inGuild: false });
    await boughtKey("30 Days", member.email);
    await vi.waitFor(async () => expect((await syncRow(member.id))?.state).toBe("not-in-guild"), { timeout: 15_000 });
    const row = await syncRow(member.id);
    expect(row).toMatchObject({ attempts: 0, nextAttemptAt: null });
    expect(
      await db
        .select()
        .from(failedJobs)
        .where(eq(failedJobs.id, `discord:${member.id}`))
        .get(),
    ).toBeUndefined();
    await joinGuild(db, member.discordId, member.username);
    await runQueue(QUEUE, [{ kind: "discord-reconcile", userIds: [member.id] }]);
    await expectRoles(member.discordId, [SUBSCRIBER, VIP]);
  });

  it("treats a member who left as parked, not failed, and restores them when they come back", async () => {
    const member = await linkedMember();
    await boughtKey("1 Week", member.email);
    await expectRoles(member.discordId, [SUBSCRIBER]);
    await leaveGuild(db, member.discordId);
    await runQueue(QUEUE, [{ kind: "discord-reconcile", userIds: [member.id] }]);
    expect((await syncRow(member.id))?.state).toBe("not-in-guild");
    await joinGuild(db, member.discordId, member.username);
    await runQueue(QUEUE, [{ kind: "discord-reconcile", userIds: [member.id] }]);
    await expectRoles(member.discordId, [SUBSCRIBER]);
  });

  it("turns 50013 (the bot's role too low) into a health alert and a retry, and the failed-jobs list after the last", async () => {
    const member = await linkedMember();
    await setBotRoleLow(db, true);
    await boughtKey("1 Week", member.email);
    await vi.waitFor(async () => expect((await syncRow(member.id))?.state).toBe("retrying"), { timeout: 15_000 });
    expect(await syncRow(member.id)).toMatchObject({ attempts: 1, lastError: expect.stringContaining("50013") });
    expect(await rolesInGuild(member.discordId)).toEqual([]);
    expect((await roleSettings(db)).healthProblems.join(" ")).toContain("Missing Permissions (50013)");
    // The health check says exactly what to change.
    const health = await checkGuildHealth({ db, setup: discordSetup(env, db) });
    expect(health?.problems.join(" ")).toContain('Drag the bot\'s role "Vertex Bot" above "Subscriber"');

    // The fifth retry fails too: the job joins the failed jobs, whose Retry sends it again.
    await db.update(discordRoleSync).set({ attempts: 5 }).where(eq(discordRoleSync.userId, member.id));
    await sync(member.id);
    expect((await syncRow(member.id))?.state).toBe("failed");
    expect((await deadJobs(db)).map((job) => job.id)).toContain(`discord:${member.id}`);
    await setBotRoleLow(db, false);
    expect((await checkGuildHealth({ db, setup: discordSetup(env, db) }))?.problems).toEqual([]);
    expect((await retryDeadJob({ db, queue: env.JOB_QUEUE }, staff.id, `discord:${member.id}`)).ok).toBe(true);
    await expectRoles(member.discordId, [SUBSCRIBER]);
    await vi.waitFor(async () =>
      expect(
        await db
          .select()
          .from(failedJobs)
          .where(eq(failedJobs.id, `discord:${member.id}`))
          .get(),
      ).toBeUndefined(),
    );
  });

  it("waits as long as a 429's Retry-After says, without using up an attempt", async () => {
    const member = await linkedMember();
    await boughtKey("1 Week", member.email);
    await expectRoles(member.discordId, [SUBSCRIBER]);
    await removeRoleByHand(db, member.discordId, SUBSCRIBER);
    await rateLimitNext(db, 1, 1800, false);
    await sync(member.id);
    expect(await syncRow(member.id)).toMatchObject({ state: "retrying", attempts: 0, lastError: expect.stringContaining("1800 s") });
    expect(await rolesInGuild(member.discordId)).toEqual([]);
    await sync(member.id);
    expect(await rolesInGuild(member.discordId)).toEqual([SUBSCRIBER]);
  });

  it("stops every job of the invocation after a global 429", async () => {
    const [first, second] = [await linkedMember(), await linkedMember()];
    await rateLimitNext(db, 1, 30, true);
    const before = await requestsSoFar();
    await runQueue(QUEUE, [
      { kind: "discord-sync", userId: first.id },
      { kind: "discord-sync", userId: second.id },
    ]);
    // One request met the global limit; the second job did not ask Discord at all.
    expect((await requestsSoFar()) - before).toBe(1);
    for (const member of [first, second]) expect((await syncRow(member.id))?.lastError).toContain("global rate limit");
  });

  it("parks retries longer than 30 minutes in D1 for the cron", async () => {
    const member = await linkedMember();
    await setBotRoleLow(db, true);
    await boughtKey("1 Week", member.email);
    await vi.waitFor(async () => expect((await syncRow(member.id))?.attempts).toBe(1), { timeout: 15_000 });
    await db.update(discordRoleSync).set({ attempts: 3 }).where(eq(discordRoleSync.userId, member.id));
    const now = Date.now();
    await sync(member.id);
    // The fourth failure waits 2 h: too long for the queue, so the row holds it.
    const row = await syncRow(member.id);
    expect(row?.attempts).toBe(4);
    expect(row?.nextAttemptAt).toBeGreaterThanOrEqual(now + 7200_000);
    await setBotRoleLow(db, false);
    await queueReconcile({ db, queue: env.JOB_QUEUE }, row!.nextAttemptAt! + 1);
    await expectRoles(member.discordId, [SUBSCRIBER]);
  });

  it("changes nothing when the same job runs twice", async () => {
    const member = await linkedMember();
    await boughtKey("30 Days", member.email);
    await expectRoles(member.discordId, [SUBSCRIBER, VIP]);
    const audits = async () => (await db.select().from(auditLog).where(eq(auditLog.subject, member.id))).length;
    const [auditsBefore, requestsBefore] = [await audits(), await requestsSoFar()];
    await runQueue(QUEUE, [
      { kind: "discord-sync", userId: member.id },
      { kind: "discord-sync", userId: member.id },
    ]);
    expect(await rolesInGuild(member.discordId)).toEqual([SUBSCRIBER, VIP].toSorted());
    // Each run read the member once and found nothing to change.
    expect((await requestsSoFar()) - requestsBefore).toBe(2);
    expect(await audits()).toBe(auditsBefore);
  });
});

describe("the reconcile sweep", () => {
  it("queues linked members at most 40 to a message, and one invocation asks Discord at most 50 times", async () => {
    const members = [];
    for (let i = 0; i < MEMBERS_PER_RECONCILE + 5; i++) members.push(await linkedMember());
    await db.update(discordRoleSync).set({ checkedAt: 0 });
    const sent = vi.spyOn(env.JOB_QUEUE, "sendBatch");
    const queued = await queueReconcile({ db, queue: env.JOB_QUEUE });
    const reconciles = sent.mock.calls
      .flatMap(([messages]) => [...messages])
      .map((message) => message.body as { kind: string; userIds?: string[] })
      .filter((body) => body.kind === "discord-reconcile");
    sent.mockRestore();
    expect(queued.members).toBeGreaterThanOrEqual(members.length);
    expect(reconciles.every((body) => body.userIds!.length <= MEMBERS_PER_RECONCILE)).toBe(true);
    const ids = members.map((member) => member.id);
    // Two full messages in one batch: the second is put back for a later invocation.
    const before = await requestsSoFar();
    await runQueue(QUEUE, [
      { kind: "discord-reconcile", userIds: ids.slice(0, MEMBERS_PER_RECONCILE) },
      { kind: "discord-reconcile", userIds: ids.slice(5, 5 + MEMBERS_PER_RECONCILE) },
    ]);
    expect((await requestsSoFar()) - before).toBeLessThanOrEqual(50);
    expect((await requestsSoFar()) - before).toBe(MEMBERS_PER_RECONCILE);
  });

  it("runs ten syncs in one invocation when the rules hand out two roles: each costs one read and at most two calls", async () => {
    const members = [];
    for (let i = 0; i < 10; i++) members.push(await linkedMember());
    const putBack = vi.spyOn(env.JOB_QUEUE, "send");
    const before = await requestsSoFar();
    await runQueue(
      QUEUE,
      members.map((member) => ({ kind: "discord-sync", userId: member.id })),
    );
    expect(putBack).not.toHaveBeenCalled();
    putBack.mockRestore();
    expect((await requestsSoFar()) - before).toBe(10);
    for (const member of members) expect((await syncRow(member.id))?.state).toBe("synced");
  });

  it("refuses a reconcile message over the bound", async () => {
    const result = await runQueue(QUEUE, [
      { kind: "discord-reconcile", userIds: Array.from({ length: MEMBERS_PER_RECONCILE + 1 }, (_, i) => `user-${i}`) },
    ]);
    expect(result.retryMessages).toHaveLength(1);
  });

  it("does nothing until staff chose a guild", async () => {
    await db.delete(discordSettings);
    const member = await linkedMember();
    await boughtKey("1 Week", member.email);
    await sync(member.id);
    expect(await rolesInGuild(member.discordId)).toEqual([]);
  });
});

describe("the real adapter", () => {
  it("calls DISCORD_API_URL as the bot, and reads Discord's errors, 429s and Cloudflare's 1015 page", async () => {
    const seen: { method: string; url: string; headers: Record<string, string> }[] = [];
    const answers = [
      Response.json(
        { message: "You are being rate limited.", retry_after: 2.4, global: false },
        { status: 429, headers: { "Retry-After": "3" } },
      ),
      new Response("<html>error code: 1015</html>", { status: 429, headers: { "Retry-After": "60", "Content-Type": "text/html" } }),
      Response.json({ code: 50013, message: "Missing Permissions" }, { status: 403 }),
      Response.json({ user: { id: "1", username: "a" }, roles: ["9"] }),
    ];
    const fetchSpy = vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      seen.push({ method: init?.method ?? "GET", url: String(input), headers: init?.headers as Record<string, string> });
      return answers.shift()!;
    });
    try {
      const { api, simulated } = discordSetup(
        { DISCORD_BOT_TOKEN: "bot-token", DISCORD_API_URL: "https://egress.example/discord/api/v10/" },
        db,
        "invocation-7",
      );
      expect(simulated).toBe(false);
      expect(await api!.member("10", "20")).toMatchObject({ ok: false, status: 429, retryAfterSeconds: 3, global: false });
      expect(await api!.addRole("10", "20", "30", "An active licence grants this role")).toMatchObject({
        ok: false,
        status: 429,
        retryAfterSeconds: 60,
      });
      expect(await api!.removeRole("10", "20", "30", "why")).toMatchObject({ ok: false, status: 403, code: 50013 });
      expect(await api!.member("10", "20")).toEqual({ ok: true, value: { user: { id: "1", username: "a" }, roles: ["9"] } });
      expect(seen.map((call) => `${call.method} ${call.url}`)).toEqual([
        "GET https://egress.example/discord/api/v10/guilds/10/members/20",
        "PUT https://egress.example/discord/api/v10/guilds/10/members/20/roles/30",
        "DELETE https://egress.example/discord/api/v10/guilds/10/members/20/roles/30",
        "GET https://egress.example/discord/api/v10/guilds/10/members/20",
      ]);
      expect(
        seen.every((call) => call.headers.Authorization === "Bot bot-token" && call.headers["X-Invocation-Id"] === "invocation-7"),
      ).toBe(true);
      expect(seen[1]!.headers["X-Audit-Log-Reason"]).toBe(encodeURIComponent("An active licence grants this role"));
    } finally {
      fetchSpy.mockRestore();
    }
  });
});
