// Roles follow the licence (decisions 064 and 065). A sync job makes one member's managed roles in
// Discord what their licences justify right now, whatever happened before: it reads the member,
// adds what is missing and removes what is no longer justified, so running it twice changes nothing
// the second time. Failures are values: a 429 waits as long as Discord asks (all jobs of the
// invocation wait for a global limit), a member who left is parked until the reconcile sweep finds
// them back, missing permissions become a health alert for staff, and anything else is retried
// after 1 min, 5 min, 30 min, 2 h and 12 h before it joins the failed jobs with a Retry button.
import { and, eq, ne, or, sql } from "drizzle-orm";
import { audit } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";
import {
  discordRoleReleases,
  discordRoleSync,
  discordSettings,
  licenceRenewals,
  licences,
  oauthAccounts,
  users,
} from "../platform/db/schema.server";
import { DISCORD_ERRORS, type DiscordAnswer } from "./discord-api.server";
import { forgetFailures, markJobDead } from "../platform/job-queue.server";
import type { JobQueue } from "../platform/job-registry.server";
import { type DiscordSetup, desiredRolesOf, discordLinkOf, managedRoles, roleSettings } from "./role-setup.server";

/** The waits after the 1st to 5th failed attempt; after the 5th the job is a failed job. */
export const RETRY_SCHEDULE_SECONDS = [60, 300, 1800, 7200, 43200] as const;
/** Waits up to this long ride on the queue as a delayed message; longer ones wait in D1 for the cron. */
export const QUEUE_DELAY_LIMIT_SECONDS = 1800;

export interface RoleSyncDeps {
  db: Db;
  setup: DiscordSetup;
  queue: JobQueue<"discord-sync" | "discord-reconcile">;
  /** Shared by the jobs of one invocation: after a global 429 none of them calls Discord before this time. */
  pause: { until: number };
}

export const syncJobKey = (userId: string) => `discord:${userId}`;

type SyncRow = typeof discordRoleSync.$inferSelect;

/** What went wrong, as the sync acts on it. */
export type SyncFailure =
  | { kind: "rate-limited"; seconds: number; global: boolean }
  | { kind: "not-in-guild" }
  | { kind: "setup"; message: string }
  | { kind: "transient"; message: string };

export function failureOf(answer: Extract<DiscordAnswer<unknown>, { ok: false }>): SyncFailure {
  if (answer.status === 429) return { kind: "rate-limited", seconds: answer.retryAfterSeconds ?? 1, global: answer.global ?? false };
  if (answer.code === DISCORD_ERRORS.unknownMember || answer.code === DISCORD_ERRORS.unknownUser) return { kind: "not-in-guild" };
  if (answer.code === DISCORD_ERRORS.missingPermissions) {
    return {
      kind: "setup",
      message:
        "Discord refused to change a role: Missing Permissions (50013). The bot's highest role must sit above every role it hands out, with Manage Roles.",
    };
  }
  if (answer.code === DISCORD_ERRORS.missingAccess || answer.code === 10004)
    return { kind: "setup", message: `The bot cannot reach the guild (${answer.code}): invite it to the server.` };
  if (answer.code === DISCORD_ERRORS.unknownRole)
    return {
      kind: "setup",
      message: "A role the sync hands out no longer exists in the guild (10011): choose another on the Discord page.",
    };
  if (answer.status === 401)
    return { kind: "setup", message: "Discord refused the bot token (401): set DISCORD_BOT_TOKEN to the bot's current token." };
  return { kind: "transient", message: `Discord answered ${answer.status || "nothing"}: ${answer.message}` };
}

/** A problem staff must fix, kept on the health card until the next health check finds it gone. */
export async function raiseHealthAlert(db: Db, message: string, now: number): Promise<void> {
  const row = await db.select({ problems: discordSettings.healthProblems }).from(discordSettings).where(eq(discordSettings.id, 1)).get();
  if (!row) return;
  const problems = row.problems ? (JSON.parse(row.problems) as string[]) : [];
  if (problems.includes(message)) return;
  await db
    .update(discordSettings)
    .set({ healthProblems: JSON.stringify([...problems, message]), healthCheckedAt: now })
    .where(eq(discordSettings.id, 1));
}

const syncRowOf = (db: Db, userId: string) => db.select().from(discordRoleSync).where(eq(discordRoleSync.userId, userId)).get();

const json = (roles: string[]) => JSON.stringify([...roles].sort());

/** Sends the job again in `seconds`: on the queue when that is short, else parked for the cron. */
async function sendLater(deps: RoleSyncDeps, userId: string, seconds: number, now: number): Promise<number | null> {
  if (seconds <= QUEUE_DELAY_LIMIT_SECONDS) {
    await deps.queue.send({ kind: "discord-sync", userId }, { delaySeconds: Math.max(1, Math.ceil(seconds)) });
    return null;
  }
  return now + seconds * 1000;
}

/** Records a failed attempt and when the next one runs (or that the job failed for good). */
export async function syncFailed(
  deps: RoleSyncDeps,
  row: Pick<SyncRow, "userId" | "attempts" | "state">,
  failure: SyncFailure,
  now: number,
): Promise<void> {
  const { db } = deps;
  const { userId } = row;
  if (failure.kind === "not-in-guild") {
    // Parked: nothing can change their roles until they are back; the reconcile sweep looks for them.
    await db
      .update(discordRoleSync)
      .set({ state: "not-in-guild", lastError: "Not in the server", attempts: 0, nextAttemptAt: null, checkedAt: now })
      .where(eq(discordRoleSync.userId, userId));
    return;
  }
  if (failure.kind === "rate-limited") {
    if (failure.global) deps.pause.until = Math.max(deps.pause.until, now + failure.seconds * 1000);
    // A rate limit is Discord's pace, not a failure of the job: it does not use up an attempt.
    const nextAttemptAt = await sendLater(deps, userId, failure.seconds, now);
    await db
      .update(discordRoleSync)
      .set({
        state: "retrying",
        nextAttemptAt,
        lastError: `Discord asked to wait ${failure.seconds} s (${failure.global ? "global" : "route"} rate limit)`,
      })
      .where(eq(discordRoleSync.userId, userId));
    return;
  }
  if (failure.kind === "setup") await raiseHealthAlert(db, failure.message, now);
  const attempts = (row.state === "failed" ? 0 : row.attempts) + 1;
  if (attempts > RETRY_SCHEDULE_SECONDS.length) {
    await db
      .update(discordRoleSync)
      .set({ state: "failed", attempts, nextAttemptAt: null, lastError: failure.message })
      .where(eq(discordRoleSync.userId, userId));
    await markJobDead(db, syncJobKey(userId), { kind: "discord-sync", userId }, attempts, now);
    return;
  }
  const nextAttemptAt = await sendLater(deps, userId, RETRY_SCHEDULE_SECONDS[attempts - 1]!, now);
  await db
    .update(discordRoleSync)
    .set({ state: "retrying", attempts, nextAttemptAt, lastError: failure.message })
    .where(eq(discordRoleSync.userId, userId));
}

/**
 * The member's sync row follows their link: made when they first need one, and when the link names
 * another Discord account than the row did, that account is released (its shop roles go at the next
 * sync) and the row starts over for the new one.
 */
export async function followLink(db: Db, userId: string, discordId: string, now: number): Promise<SyncRow> {
  const [, , [row]] = await db.batch([
    // Linked back to an account it had released: nothing to take back from it.
    db.delete(discordRoleReleases).where(and(eq(discordRoleReleases.userId, userId), eq(discordRoleReleases.discordId, discordId))),
    db
      .insert(discordRoleReleases)
      .select(
        db
          .select({ userId: discordRoleSync.userId, discordId: discordRoleSync.discordId, createdAt: sql<number>`${now}`.as("created_at") })
          .from(discordRoleSync)
          .where(and(eq(discordRoleSync.userId, userId), ne(discordRoleSync.discordId, discordId))),
      )
      .onConflictDoNothing(),
    db
      .insert(discordRoleSync)
      .values({ userId, discordId })
      .onConflictDoUpdate({
        target: discordRoleSync.userId,
        set: {
          discordId,
          state: sql`case when ${discordRoleSync.discordId} = ${discordId} then ${discordRoleSync.state} else 'pending' end`,
          actualRoles: sql`case when ${discordRoleSync.discordId} = ${discordId} then ${discordRoleSync.actualRoles} else null end`,
        },
      })
      .returning(),
  ]);
  return row!;
}

/**
 * Takes the managed roles the shop gave `discordId` back (a Discord account the member no longer
 * links). One that has left the server has none left to take; one now linked to another member
 * keeps what that member's own sync says. False when Discord refused, the failure recorded.
 */
async function takeBackRoles(
  deps: RoleSyncDeps,
  row: SyncRow,
  discordId: string,
  managed: string[],
  guildId: string,
  now: number,
): Promise<boolean> {
  const { db, setup } = deps;
  const holder = await db
    .select({ userId: oauthAccounts.userId })
    .from(oauthAccounts)
    .where(and(eq(oauthAccounts.provider, "discord"), eq(oauthAccounts.providerUserId, discordId)))
    .get();
  if (holder) {
    await queueRoleSync(deps.queue, [holder.userId]);
    return true;
  }
  const member = await setup.api!.member(guildId, discordId);
  const refused = async (answer: Extract<DiscordAnswer<unknown>, { ok: false }>) => {
    const failure = failureOf(answer);
    if (failure.kind === "not-in-guild") return true;
    await syncFailed(deps, row, failure, now);
    return false;
  };
  if (!member.ok) return refused(member);
  for (const roleId of managed.filter((role) => member.value.roles.includes(role))) {
    const answer = await setup.api!.removeRole(guildId, discordId, roleId, "The member unlinked this Discord account from the shop");
    if (!answer.ok) return refused(answer);
    await audit(db, null, "discord.role.remove", row.userId, { discordId, roleId, unlinked: true });
  }
  return true;
}

/**
 * The job: one member's managed roles made what their licences justify now. Discord accounts the
 * member no longer links lose the roles the shop gave them first, one account per job (each job
 * stays within its subrequests), the rest in follow-up jobs; a member who unlinked has no row left
 * once that is done.
 */
export async function syncMemberRoles(deps: RoleSyncDeps, userId: string, now = Date.now()): Promise<void> {
  const { db, setup } = deps;
  const settings = await roleSettings(db);
  if (!setup.api || !settings.guildId || settings.rules.length === 0) return;
  const link = await discordLinkOf(db, userId);
  const row = link ? await followLink(db, userId, link.discordId, now) : await syncRowOf(db, userId);
  if (!row) return;
  const desired = link ? ((await desiredRolesOf(db, [userId], now)).get(userId) ?? []) : [];
  await db
    .update(discordRoleSync)
    .set({ desiredRoles: json(desired) })
    .where(eq(discordRoleSync.userId, userId));
  if (deps.pause.until > now)
    return syncFailed(deps, row, { kind: "rate-limited", seconds: Math.ceil((deps.pause.until - now) / 1000), global: true }, now);
  const managed = managedRoles(settings.rules);

  const release = await db
    .select({ discordId: discordRoleReleases.discordId })
    .from(discordRoleReleases)
    .where(eq(discordRoleReleases.userId, userId))
    .orderBy(discordRoleReleases.createdAt)
    .get();
  if (release || !link) {
    const discordId = release?.discordId ?? row.discordId;
    if (!(await takeBackRoles(deps, row, discordId, managed, settings.guildId, now))) return;
    if (release) {
      await db.batch([
        db.delete(discordRoleReleases).where(and(eq(discordRoleReleases.userId, userId), eq(discordRoleReleases.discordId, discordId))),
        db
          .update(discordRoleSync)
          .set({
            attempts: 0,
            nextAttemptAt: null,
            lastError: null,
            state: sql`case when ${discordRoleSync.state} in ('retrying', 'failed') then 'pending' else ${discordRoleSync.state} end`,
          })
          .where(eq(discordRoleSync.userId, userId)),
      ]);
      // The next released account, or the linked one, in a job of its own.
      await queueRoleSync(deps.queue, [userId]);
    } else {
      await db.delete(discordRoleSync).where(eq(discordRoleSync.userId, userId));
    }
    if (row.attempts > 0 || row.state === "failed") await forgetFailures(db, syncJobKey(userId));
    return;
  }

  const member = await setup.api.member(settings.guildId, link.discordId);
  if (!member.ok) return syncFailed(deps, row, failureOf(member), now);
  const held = new Set(member.value.roles);
  const changes = [
    ...desired.filter((role) => !held.has(role)).map((roleId) => ({ roleId, add: true })),
    ...managed.filter((role) => held.has(role) && !desired.includes(role)).map((roleId) => ({ roleId, add: false })),
  ];
  for (const { roleId, add } of changes) {
    const reason = add ? "An active licence grants this role" : "No active licence grants this role any more";
    const answer = add
      ? await setup.api.addRole(settings.guildId, link.discordId, roleId, reason)
      : await setup.api.removeRole(settings.guildId, link.discordId, roleId, reason);
    if (!answer.ok) return syncFailed(deps, row, failureOf(answer), now);
    if (add) held.add(roleId);
    else held.delete(roleId);
    await audit(db, null, add ? "discord.role.grant" : "discord.role.remove", userId, { discordId: link.discordId, roleId });
  }
  await db
    .update(discordRoleSync)
    .set({
      actualRoles: json([...held]),
      state: "synced",
      attempts: 0,
      nextAttemptAt: null,
      lastError: null,
      lastSyncAt: now,
      checkedAt: now,
    })
    .where(eq(discordRoleSync.userId, userId));
  if (row.attempts > 0 || row.state === "failed") await forgetFailures(db, syncJobKey(userId));
}

/** Queues a sync of each of `userIds` now (after a purchase, a link, a refund): the cron is the backstop. */
export async function queueRoleSync(queue: JobQueue<"discord-sync">, userIds: string[]): Promise<void> {
  const unique = [...new Set(userIds)];
  for (let i = 0; i < unique.length; i += 100) {
    await queue.sendBatch(unique.slice(i, i + 100).map((userId) => ({ body: { kind: "discord-sync", userId } })));
  }
}

/** After an order's keys were handed out or stopped: a sync of each linked member who owns one of its licences. */
export async function queueSyncForOrder(deps: Pick<RoleSyncDeps, "db" | "queue">, orderId: string | null | undefined): Promise<void> {
  if (!orderId) return;
  const owners = await deps.db
    .selectDistinct({ userId: oauthAccounts.userId })
    .from(licences)
    .innerJoin(users, sql`lower(${users.email}) = lower(${licences.ownerEmail})`)
    .innerJoin(oauthAccounts, and(eq(oauthAccounts.userId, users.id), eq(oauthAccounts.provider, "discord")))
    // The order's own keys, and the licences it renewed (decision 090).
    .where(
      or(
        eq(licences.orderId, orderId),
        sql`${licences.id} in (select ${licenceRenewals.licenceId} from ${licenceRenewals} where ${licenceRenewals.orderKey} in (${`shopify:${orderId}`}, ${`crypto:${orderId}`}))`,
      ),
    );
  await queueRoleSync(
    deps.queue,
    owners.map((owner) => owner.userId),
  );
}
