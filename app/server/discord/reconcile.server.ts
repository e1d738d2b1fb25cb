// The backstop (decision 064): the cron compares what each linked member should have with what
// Discord says they have, a bounded number of members per queue message, and queues a sync for
// every difference: a licence that ran out, a role removed by hand, a member who came back. The
// health check (is the bot in the guild, may it manage roles, does it sit above them) runs with it.
import { and, asc, eq, inArray, isNotNull, lte, sql } from "drizzle-orm";
import type { Db } from "../platform/db/client.server";
import { discordRoleReleases, discordRoleSync, discordSettings, oauthAccounts, users } from "../platform/db/schema.server";
import { ADMINISTRATOR, type DiscordRole, MANAGE_ROLES } from "./discord-api.server";
import { desiredRolesJson, desiredRolesOf, managedRoles, roleSettings } from "./role-setup.server";
import { type JobOf, MEMBERS_PER_RECONCILE } from "../platform/job-registry.server";
import { failureOf, queueRoleSync, type RoleSyncDeps, syncFailed } from "./role-sync.server";

/** Members one cron run queues for comparison: 50 messages, 2,000 members every five minutes. */
export const MEMBERS_PER_SWEEP = 2000;
/** How long a member's comparison holds before the sweep looks again. */
export const RECONCILE_EVERY_MS = 60 * 60_000;
/** Reconcile messages start this far apart, so one invocation rarely holds two. */
const MESSAGE_SPACING_SECONDS = 2;

/**
 * Cron (and /dev/discord's "Run the sweep now", for `everyone`): rows for new links, parked retries that are due, and the members compared longest ago,
 * queued `MEMBERS_PER_RECONCILE` to a message.
 */
export async function queueReconcile(
  deps: Pick<RoleSyncDeps, "db" | "queue">,
  now = Date.now(),
  { everyone = false } = {},
): Promise<{ members: number; messages: number }> {
  const { db, queue } = deps;
  const settings = await roleSettings(db);
  if (!settings.guildId || settings.rules.length === 0) return { members: 0, messages: 0 };
  // A row for every link that has none yet (the sync job makes them too, this catches the rest).
  await db.run(
    sql`insert into ${discordRoleSync} (user_id, discord_id) select ${oauthAccounts.userId}, ${oauthAccounts.providerUserId} from ${oauthAccounts} where ${oauthAccounts.provider} = 'discord' on conflict do nothing`,
  );
  const due = await db
    .update(discordRoleSync)
    .set({ nextAttemptAt: null })
    .where(and(isNotNull(discordRoleSync.nextAttemptAt), lte(discordRoleSync.nextAttemptAt, now)))
    .returning({ userId: discordRoleSync.userId });
  await queueRoleSync(
    queue,
    due.map((row) => row.userId),
  );
  // Licences that started or ended since (a purchase, an expiry, a refund, a ban), links that
  // ended or changed, and Discord accounts released with roles to take back: synced now, without
  // waiting for the member's turn to be compared.
  const changed = await db
    .select({ userId: discordRoleSync.userId })
    .from(discordRoleSync)
    .leftJoin(users, eq(users.id, discordRoleSync.userId))
    .leftJoin(oauthAccounts, and(eq(oauthAccounts.userId, discordRoleSync.userId), eq(oauthAccounts.provider, "discord")))
    // Not those parked outside the server, nor those waiting for a retry (it syncs what is true then).
    .where(
      sql`${discordRoleSync.state} not in ('not-in-guild', 'retrying') and (${discordRoleSync.desiredRoles} != ${desiredRolesJson(now)} or ${oauthAccounts.providerUserId} is null
        or ${oauthAccounts.providerUserId} != ${discordRoleSync.discordId} or exists (select 1 from ${discordRoleReleases} where ${discordRoleReleases.userId} = ${discordRoleSync.userId}))`,
    )
    .limit(MEMBERS_PER_SWEEP);
  await queueRoleSync(
    queue,
    changed.map((row) => row.userId),
  );

  const stale = await db
    .select({ userId: discordRoleSync.userId })
    .from(discordRoleSync)
    // Everyone, when a developer presses "Run the sweep now" on /dev/discord.
    .where(lte(discordRoleSync.checkedAt, everyone ? now : now - RECONCILE_EVERY_MS))
    .orderBy(asc(discordRoleSync.checkedAt))
    .limit(MEMBERS_PER_SWEEP);
  const userIds = stale.map((row) => row.userId);
  const messages: MessageSendRequest<JobOf<"discord-reconcile">>[] = [];
  for (let i = 0; i < userIds.length; i += MEMBERS_PER_RECONCILE) {
    messages.push({
      body: { kind: "discord-reconcile", userIds: userIds.slice(i, i + MEMBERS_PER_RECONCILE) },
      delaySeconds: messages.length * MESSAGE_SPACING_SECONDS,
    });
  }
  for (let i = 0; i < messages.length; i += 100) await queue.sendBatch(messages.slice(i, i + 100));
  // Marked as looked at when queued, so the next cron run does not queue them again meanwhile.
  for (let i = 0; i < userIds.length; i += 90) {
    await db
      .update(discordRoleSync)
      .set({ checkedAt: now })
      .where(inArray(discordRoleSync.userId, userIds.slice(i, i + 90)));
  }
  return { members: userIds.length, messages: messages.length };
}

/** A member's row once Discord said what they have. */
const memberSeen = (db: Db, userId: string, values: Partial<typeof discordRoleSync.$inferInsert>) =>
  db.update(discordRoleSync).set(values).where(eq(discordRoleSync.userId, userId));

const sameRoles = (a: string[], b: string[]) => a.length === b.length && a.every((role) => b.includes(role));

/** The job: each member of `userIds` read from Discord once; a sync queued for each difference. */
export async function runReconcile(deps: RoleSyncDeps, userIds: string[], now = Date.now()): Promise<void> {
  const { db, setup } = deps;
  const settings = await roleSettings(db);
  if (!setup.api || !settings.guildId) return;
  const rows = await db.select().from(discordRoleSync).where(inArray(discordRoleSync.userId, userIds));
  const desired = await desiredRolesOf(db, userIds, now);
  const managed = managedRoles(settings.rules);
  const toSync: string[] = [];
  const seen: ReturnType<typeof memberSeen>[] = [];
  // A 429 on one member would meet the rest too: they wait, in a message of their own.
  let waitUntil = deps.pause.until;
  for (const [index, row] of rows.entries()) {
    if (waitUntil > now) {
      const rest = rows.slice(index).map((later) => later.userId);
      await deps.queue.send({ kind: "discord-reconcile", userIds: rest }, { delaySeconds: Math.ceil((waitUntil - now) / 1000) });
      break;
    }
    const should = desired.get(row.userId) ?? [];
    const member = await setup.api.member(settings.guildId, row.discordId);
    if (!member.ok) {
      const failure = failureOf(member);
      if (failure.kind === "rate-limited") {
        waitUntil = now + failure.seconds * 1000;
        if (failure.global) deps.pause.until = waitUntil;
        // This member goes with the rest.
        rows.splice(index + 1, 0, row);
      } else if (failure.kind === "not-in-guild") {
        await syncFailed(deps, row, failure, now);
      }
      continue;
    }
    const has = member.value.roles.filter((role) => managed.includes(role));
    const differs = !sameRoles(has, should) || row.state === "not-in-guild" || row.state === "pending";
    seen.push(
      memberSeen(db, row.userId, {
        actualRoles: JSON.stringify(member.value.roles.toSorted()),
        desiredRoles: JSON.stringify(should),
        checkedAt: now,
        ...(differs ? { state: "pending" as const } : {}),
      }),
    );
    if (differs) toSync.push(row.userId);
  }
  // What Discord said of each member, written in one round trip rather than one per member.
  const [first, ...rest] = seen;
  if (first) await db.batch([first, ...rest]);
  await queueRoleSync(deps.queue, toSync);
}

export interface GuildHealth {
  checkedAt: number;
  problems: string[];
  /** The guild's roles, highest first, and whether the bot may hand each out. Empty when Discord could not be read. */
  roles: (Pick<DiscordRole, "id" | "name" | "position"> & { assignable: boolean })[];
  botName: string | null;
}

/** Asks Discord whether the bot can do its job, and keeps what staff must change for the health card. */
export async function checkGuildHealth(deps: Pick<RoleSyncDeps, "db" | "setup">, now = Date.now()): Promise<GuildHealth | null> {
  const { db, setup } = deps;
  const settings = await roleSettings(db);
  if (!setup.api || !settings.guildId) return null;
  const guildId = settings.guildId;
  const report: GuildHealth = { checkedAt: now, problems: [], roles: [], botName: null };
  const me = await setup.api.me();
  if (!me.ok) {
    report.problems.push(
      me.status === 401
        ? "Discord refused the bot token (401): set DISCORD_BOT_TOKEN to the bot's current token from the Developer Portal."
        : `Discord could not be asked about the bot: ${me.message}.`,
    );
  } else {
    report.botName = me.value.username;
    const [roles, bot] = await Promise.all([setup.api.roles(guildId), setup.api.member(guildId, me.value.id)]);
    if (!roles.ok || !bot.ok) {
      const answer = !roles.ok ? roles : (bot as Extract<typeof bot, { ok: false }>);
      if (answer.status === 429) return null;
      report.problems.push(
        `The bot "${me.value.username}" is not in the guild ${guildId} (${answer.code || answer.status}): invite it to the server with the Manage Roles permission.`,
      );
    } else {
      const held = roles.value.filter((role) => bot.value.roles.includes(role.id) || role.id === guildId);
      const permissions = held.reduce((all, role) => all | BigInt(role.permissions), 0n);
      const top = Math.max(0, ...held.filter((role) => role.id !== guildId).map((role) => role.position));
      const topName = held.find((role) => role.position === top)?.name ?? "@everyone";
      const manage = (permissions & (MANAGE_ROLES | ADMINISTRATOR)) !== 0n;
      if (!manage) report.problems.push(`The bot's roles lack Manage Roles: give "${topName}" that permission in Server Settings → Roles.`);
      for (const roleId of managedRoles(settings.rules)) {
        const role = roles.value.find((candidate) => candidate.id === roleId);
        if (!role) report.problems.push(`The role ${roleId} no longer exists in the guild: choose another below.`);
        else if (role.position >= top)
          report.problems.push(
            `Drag the bot's role "${topName}" above "${role.name}" in Server Settings → Roles: a bot can only hand out roles below its highest role (Discord error 50013).`,
          );
      }
      report.roles = roles.value
        .filter((role) => role.id !== guildId && !role.managed)
        .toSorted((a, b) => b.position - a.position)
        .map((role) => ({ id: role.id, name: role.name, position: role.position, assignable: manage && role.position < top }));
    }
  }
  await db
    .update(discordSettings)
    .set({ healthCheckedAt: now, healthProblems: JSON.stringify(report.problems) })
    .where(eq(discordSettings.id, 1));
  return report;
}
