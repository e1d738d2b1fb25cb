// What /dev/discord shows and does to the simulated guild: its members and their roles, and the
// mishaps to provoke (a role removed by hand, a member who leaves or comes back, the bot's role
// dragged too low, a burst of 429s), so a developer can watch the shop notice and repair.
import { eq, sql } from "drizzle-orm";
import * as v from "valibot";
import type { Db } from "../platform/db/client.server";
import {
  discordRoleRules,
  discordSettings,
  oauthAccounts,
  profiles,
  simulatedDiscordFaults,
  simulatedDiscordMembers,
  simulatedDiscordRoles,
} from "../platform/db/schema.server";
import { ensureSimulatedGuild, SIMULATED_BOT_ID, SIMULATED_GUILD_ID, SIMULATED_ROLES } from "./simulated-discord.server";

const BOT_ROLE_HIGH = 10;
const BOT_ROLE_LOW = 1;

export async function simulatedGuild(db: Db) {
  await ensureSimulatedGuild(db);
  const [roles, members, faults] = await Promise.all([
    db
      .select()
      .from(simulatedDiscordRoles)
      .orderBy(sql`${simulatedDiscordRoles.position} desc`),
    db
      .select({
        userId: simulatedDiscordMembers.userId,
        username: simulatedDiscordMembers.username,
        roles: simulatedDiscordMembers.roles,
        shopUser: profiles.username,
      })
      .from(simulatedDiscordMembers)
      .leftJoin(
        oauthAccounts,
        sql`${oauthAccounts.provider} = 'discord' and ${oauthAccounts.providerUserId} = ${simulatedDiscordMembers.userId}`,
      )
      .leftJoin(profiles, eq(profiles.id, oauthAccounts.userId))
      .orderBy(simulatedDiscordMembers.joinedAt),
    db.select().from(simulatedDiscordFaults).where(eq(simulatedDiscordFaults.id, 1)).get(),
  ]);
  const botRole = roles.find((role) => role.name === "Vertex Bot");
  // Members of the shop who linked Discord but are not in the server (never joined, or left).
  const outside = await db
    .select({ userId: oauthAccounts.providerUserId, username: oauthAccounts.providerUsername, shopUser: profiles.username })
    .from(oauthAccounts)
    .leftJoin(profiles, eq(profiles.id, oauthAccounts.userId))
    .where(
      sql`${oauthAccounts.provider} = 'discord' and ${oauthAccounts.providerUserId} not in (select ${simulatedDiscordMembers.userId} from ${simulatedDiscordMembers})`,
    );
  return {
    outside,
    roles,
    members: members.map((member) => ({ ...member, roles: JSON.parse(member.roles) as string[], bot: member.userId === SIMULATED_BOT_ID })),
    botRoleLow: (botRole?.position ?? BOT_ROLE_HIGH) < BOT_ROLE_HIGH,
    rateLimitedRequests: faults?.rateLimitedRequests ?? 0,
    requests: faults?.requests ?? 0,
  };
}

/** Someone with Manage Roles takes a role away by hand. */
export async function removeRoleByHand(db: Db, userId: string, roleId: string): Promise<void> {
  await db
    .update(simulatedDiscordMembers)
    .set({
      roles: sql`(select coalesce(json_group_array(value), '[]') from json_each(${simulatedDiscordMembers.roles}) where value != ${roleId})`,
    })
    .where(eq(simulatedDiscordMembers.userId, userId));
}

/** The member leaves the server (their roles go with them, as on Discord). */
export async function leaveGuild(db: Db, userId: string): Promise<void> {
  if (userId === SIMULATED_BOT_ID) return;
  await db.delete(simulatedDiscordMembers).where(eq(simulatedDiscordMembers.userId, userId));
}

/** A Discord user joins the server by an invite, with no roles. */
export async function joinGuild(db: Db, userId: string, username: string): Promise<void> {
  await ensureSimulatedGuild(db);
  await db.insert(simulatedDiscordMembers).values({ userId, username, roles: "[]", joinedAt: Date.now() }).onConflictDoNothing();
}

/** The bot's role dragged below the roles it hands out, or back above them. */
export async function setBotRoleLow(db: Db, low: boolean): Promise<void> {
  await ensureSimulatedGuild(db);
  await db
    .update(simulatedDiscordRoles)
    .set({ position: low ? BOT_ROLE_LOW : BOT_ROLE_HIGH })
    .where(eq(simulatedDiscordRoles.name, "Vertex Bot"));
}

/** The next `requests` answers are 429s asking to wait `seconds` (Discord's global limit if `global`). */
export async function rateLimitNext(db: Db, requests: number, seconds: number, global: boolean): Promise<void> {
  await ensureSimulatedGuild(db);
  await db
    .update(simulatedDiscordFaults)
    .set({ rateLimitedRequests: requests, retryAfterSeconds: seconds, globalLimit: global ? 1 : 0 })
    .where(eq(simulatedDiscordFaults.id, 1));
}

/** The simulated Discord is there in development and tests, never in a production build. */
export const SIMULATED_DISCORD_ENABLED = !import.meta.env.PROD;

const id = v.pipe(v.string(), v.regex(/^\d{17,20}$/, "Choose a member"));
export const devDiscordSchema = v.variant(
  "intent",
  [
    v.object({ intent: v.literal("remove-role"), userId: id, roleId: id }),
    v.object({ intent: v.literal("leave"), userId: id }),
    v.object({ intent: v.literal("join"), userId: id, username: v.pipe(v.string(), v.trim(), v.nonEmpty(), v.maxLength(40)) }),
    v.object({ intent: v.picklist(["bot-low", "bot-high", "rate-limit", "global-limit", "reconcile"]) }),
  ],
  "Unknown request",
);

/** Demo data: the simulated server, with "Subscriber" for any active licence and "VIP" for monthly and lifetime (once; staff may change it). */
export async function seedSimulatedDiscord(db: Db, now: number): Promise<void> {
  const [settings] = await db
    .insert(discordSettings)
    .values({ id: 1, guildId: SIMULATED_GUILD_ID, updatedAt: now })
    .onConflictDoNothing()
    .returning();
  if (!settings) return;
  await ensureSimulatedGuild(db);
  await db
    .insert(discordRoleRules)
    .values([
      { grant: "any", roleId: SIMULATED_ROLES.subscriber, roleName: "Subscriber", createdAt: now },
      { grant: "monthly", roleId: SIMULATED_ROLES.vip, roleName: "VIP", createdAt: now },
      { grant: "lifetime", roleId: SIMULATED_ROLES.vip, roleName: "VIP", createdAt: now },
    ])
    .onConflictDoNothing();
}
