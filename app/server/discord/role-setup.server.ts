// What the Discord role sync runs on: the API (a bot token against DISCORD_API_URL, or the simulated
// guild when no token is set outside production), the guild staff chose, the role each grant hands
// out, and the roles each linked member's licences justify (decision 064).
import { and, count, eq, inArray, sql } from "drizzle-orm";
import { MAX_MANAGED_ROLES } from "~/lib/discord-roles";
import { fail, ok, type Result } from "~/lib/result";
import { audit } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";
import { type Read, read, readAlone, readOf } from "../platform/db/reads.server";
import { discordRoleRules, discordRoleSync, discordSettings, oauthAccounts, users } from "../platform/db/schema.server";
import { DEFAULT_DISCORD_API_URL, type DiscordApi, discordApi, fetchTransport } from "./discord-api.server";
import { simulatedDiscord } from "./simulated-discord.server";

/** Production builds never talk to the simulated guild. */
const PRODUCTION = import.meta.env.PROD;

export type DiscordEnv = Partial<Pick<Env, "DISCORD_BOT_TOKEN" | "DISCORD_API_URL">>;

export interface DiscordSetup {
  /** Null when production has no bot token: role sync is off. */
  api: DiscordApi | null;
  simulated: boolean;
}

/** `invocation`: the id of the queue or cron invocation, sent with each request (see `discordApi`). */
export function discordSetup(env: DiscordEnv, db: Db, invocation?: string): DiscordSetup {
  const token = env.DISCORD_BOT_TOKEN?.trim();
  if (token)
    return {
      api: discordApi({ baseUrl: env.DISCORD_API_URL?.trim() || DEFAULT_DISCORD_API_URL, token, transport: fetchTransport, invocation }),
      simulated: false,
    };
  if (PRODUCTION) return { api: null, simulated: false };
  return {
    api: discordApi({ baseUrl: "https://discord.simulated/api/v10", token: "simulated", transport: simulatedDiscord(db) }),
    simulated: true,
  };
}

/**
 * The roles a member (the `users` row in the outer query) should have now, as a sorted JSON list:
 * those a rule grants for a licence of theirs that is active (paid and not ended by expiry, refund,
 * cancellation, revocation or ban), none for a banned account or an unconfirmed address. A rule's
 * grant is "any" or a plan; entitlements plug in here as "entitlement:<name>".
 */
// Written with its tables named in full: drizzle leaves a column unqualified in some places, and
// unqualified, "banned_at" would be the licence's ban rather than the account's.
export const desiredRolesJson = (now: number) => sql<string>`(select coalesce(json_group_array(role_id), '[]') from (
  select distinct "discord_role_rules"."role_id" as role_id from "licences"
  join "discord_role_rules" on ("discord_role_rules"."grant" = 'any' or "discord_role_rules"."grant" = "licences"."plan")
  where lower("licences"."owner_email") = lower("users"."email") and "users"."banned_at" is null and "users"."email_verified_at" is not null
    and "licences"."revoked_at" is null and "licences"."banned_at" is null and "licences"."suspended_at" is null and ("licences"."expires_at" is null or "licences"."expires_at" > ${now})
  order by role_id))`;

export interface RoleRule {
  id: number;
  grant: string;
  roleId: string;
  roleName: string | null;
}

export interface RoleSettings {
  guildId: string | null;
  rules: RoleRule[];
  healthCheckedAt: number | null;
  healthProblems: string[];
}

/** The guild and the role rules, as a read not yet run. */
function roleSettingsRead(db: Db): Read<RoleSettings> {
  return read(
    [
      db.select().from(discordSettings).where(eq(discordSettings.id, 1)).limit(1),
      db
        .select({
          id: discordRoleRules.id,
          grant: discordRoleRules.grant,
          roleId: discordRoleRules.roleId,
          roleName: discordRoleRules.roleName,
        })
        .from(discordRoleRules)
        .orderBy(discordRoleRules.id),
    ],
    ([[settings], rules]) => ({
      guildId: settings?.guildId ?? null,
      rules,
      healthCheckedAt: settings?.healthCheckedAt ?? null,
      healthProblems: settings?.healthProblems ? (JSON.parse(settings.healthProblems) as string[]) : [],
    }),
  );
}

export async function roleSettings(db: Db): Promise<RoleSettings> {
  return readAlone(db, roleSettingsRead(db));
}

/** Every role the sync hands out and takes back; roles outside the rules are never touched. */
export const managedRoles = (rules: RoleRule[]) => [...new Set(rules.map((rule) => rule.roleId))];

/** The roles each of `userIds` should have now (see `desiredRolesJson`). */
export async function desiredRolesOf(db: Db, userIds: string[], now: number): Promise<Map<string, string[]>> {
  if (userIds.length === 0) return new Map();
  const rows = await db
    .select({ userId: users.id, roles: desiredRolesJson(now) })
    .from(users)
    .where(inArray(users.id, userIds));
  return new Map(rows.map((row) => [row.userId, JSON.parse(row.roles) as string[]]));
}

const discordLink = (db: Db, userId: string) =>
  db
    .select({ discordId: oauthAccounts.providerUserId, username: oauthAccounts.providerUsername })
    .from(oauthAccounts)
    .where(and(eq(oauthAccounts.provider, "discord"), eq(oauthAccounts.userId, userId)))
    .limit(1);

/** The member's Discord account, if they linked one. */
export const discordLinkOf = (db: Db, userId: string) => discordLink(db, userId).get();

/** Staff: the guild roles are handed out in. */
export async function saveGuild(db: Db, staffId: string, guildId: string, now = Date.now()): Promise<Result> {
  await db
    .insert(discordSettings)
    .values({ id: 1, guildId, updatedAt: now })
    .onConflictDoUpdate({ target: discordSettings.id, set: { guildId, updatedAt: now, healthCheckedAt: null, healthProblems: null } });
  await audit(db, staffId, "discord.guild", guildId);
  return ok();
}

/**
 * Staff: an active licence of `grant` gives `roleId`, a role Discord says the server has (when
 * Discord cannot be asked, the rule is kept and the health check judges the role later).
 */
export async function addRoleRule(
  deps: { db: Db; setup: DiscordSetup },
  staffId: string,
  rule: { grant: string; roleId: string },
  now = Date.now(),
): Promise<Result> {
  const { db, setup } = deps;
  const settings = await roleSettings(db);
  if (!settings.guildId) return fail("conflict", "Choose the server first.");
  const managed = managedRoles(settings.rules);
  if (!managed.includes(rule.roleId) && managed.length >= MAX_MANAGED_ROLES)
    return fail("conflict", `The sync hands out at most ${MAX_MANAGED_ROLES} roles: remove a rule first.`);
  const roles = setup.api ? await setup.api.roles(settings.guildId) : null;
  const role = roles?.ok ? roles.value.find((candidate) => candidate.id === rule.roleId) : undefined;
  if (roles?.ok && (!role || role.id === settings.guildId || role.managed))
    return fail("invalid", "The server has no role with this id that can be handed out", { field: "roleId" });
  const added = await db
    .insert(discordRoleRules)
    .values({ ...rule, roleName: role?.name ?? null, createdAt: now })
    .onConflictDoNothing()
    .returning({ id: discordRoleRules.id });
  if (added.length === 0) return fail("conflict", "That plan already grants that role.");
  await audit(db, staffId, "discord.rule.add", rule.roleId, { ...rule, roleName: role?.name ?? null });
  return ok();
}

/** Staff: a rule ends. The role is no longer the sync's: those who hold it keep it until staff remove it in Discord. */
export async function removeRoleRule(db: Db, staffId: string, id: number): Promise<Result> {
  const [removed] = await db.delete(discordRoleRules).where(eq(discordRoleRules.id, id)).returning();
  if (!removed) return fail("not-found", "No such rule: it may have been removed already.");
  await audit(db, staffId, "discord.rule.remove", removed.roleId, { grant: removed.grant });
  return ok();
}

/** How many linked members stand where: synced, waiting, parked outside the server, failed. */
export async function syncCounts(db: Db): Promise<Record<(typeof discordRoleSync.$inferSelect)["state"], number>> {
  const rows = await db.select({ state: discordRoleSync.state, members: count() }).from(discordRoleSync).groupBy(discordRoleSync.state);
  const counts = { pending: 0, synced: 0, "not-in-guild": 0, retrying: 0, failed: 0 };
  for (const row of rows) counts[row.state] = row.members;
  return counts;
}

/** Where one member's roles stand, as a read not yet run; null without a linked account. */
function memberRoleSyncRead(db: Db, userId: string) {
  const member = read(
    [discordLink(db, userId), db.select().from(discordRoleSync).where(eq(discordRoleSync.userId, userId)).limit(1)],
    ([[link], [row]]) => ({ link, row }),
  );
  return readOf([member, roleSettingsRead(db)], ([{ link, row }, settings]) => {
    if (!link) return null;
    const managed = managedRoles(settings.rules);
    const name = (id: string) => settings.rules.find((rule) => rule.roleId === id)?.roleName ?? id;
    return {
      username: link.username,
      discordId: link.discordId,
      state: row?.state ?? ("pending" as const),
      should: row ? (JSON.parse(row.desiredRoles) as string[]).map(name) : [],
      // Only the roles the shop hands out: the member's other roles are none of its business.
      has: row?.actualRoles ? (JSON.parse(row.actualRoles) as string[]).filter((role) => managed.includes(role)).map(name) : null,
      lastSyncAt: row?.lastSyncAt ?? null,
      lastError: row?.lastError ?? null,
    };
  });
}

/** Where one member's roles stand, for their page and the customer's page in the back office: one round trip. */
export async function memberRoleSync(db: Db, userId: string) {
  return readAlone(db, memberRoleSyncRead(db, userId));
}
