// The simulated Discord guild of development and tests (decision 064): the few REST endpoints the
// role sync calls, answering with Discord's shapes, statuses and JSON error codes, over D1 tables of
// its own. The /dev/discord page pokes at it the way people and Discord misbehave: a role removed
// by hand, a member who leaves, the bot's role dragged below the roles it hands out, a burst of 429s.
import { eq, sql } from "drizzle-orm";
import type { Db } from "../platform/db/client.server";
import { simulatedDiscordFaults, simulatedDiscordMembers, simulatedDiscordRoles } from "../platform/db/schema.server";
import { DISCORD_ERRORS, type DiscordReply, type DiscordTransport, MANAGE_ROLES } from "./discord-api.server";

export const SIMULATED_GUILD_ID = "1100000000000000001";
export const SIMULATED_BOT_ID = "1100000000000000002";
const BOT_ROLE_ID = "1100000000000000010";
/** The roles a fresh simulated guild has, beside @everyone (whose id is the guild's) and the bot's own. */
export const SIMULATED_ROLES = { subscriber: "1100000000000000011", vip: "1100000000000000012" } as const;
const BOT_ROLE_POSITION = 10;

/** The access token the simulated OAuth hands out for a Discord user: it names them. */
export const simulatedAccessToken = (discordUserId: string) => `simulated-access-${discordUserId}`;

const seeded = new WeakSet<Db>();

/** The guild's roles and the bot's membership, once per database (repeatable). */
export async function ensureSimulatedGuild(db: Db): Promise<void> {
  if (seeded.has(db)) return;
  await db.batch([
    db
      .insert(simulatedDiscordRoles)
      .values([
        { id: SIMULATED_GUILD_ID, name: "@everyone", position: 0, permissions: "0" },
        { id: BOT_ROLE_ID, name: "Vertex Bot", position: BOT_ROLE_POSITION, permissions: String(MANAGE_ROLES) },
        { id: SIMULATED_ROLES.subscriber, name: "Subscriber", position: 2, permissions: "0" },
        { id: SIMULATED_ROLES.vip, name: "VIP", position: 3, permissions: "0" },
      ])
      .onConflictDoNothing(),
    db
      .insert(simulatedDiscordMembers)
      .values({ userId: SIMULATED_BOT_ID, username: "Vertex Bot", roles: JSON.stringify([BOT_ROLE_ID]), joinedAt: 0 })
      .onConflictDoNothing(),
    db.insert(simulatedDiscordFaults).values({ id: 1 }).onConflictDoNothing(),
  ]);
  seeded.add(db);
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): DiscordReply => ({
  status,
  headers: { "content-type": "application/json", ...headers },
  body: status === 204 ? "" : JSON.stringify(body),
});
const error = (status: number, code: number, message: string) => json(status, { code, message });

const parseRoles = (text: string): string[] => JSON.parse(text) as string[];

/** A 429 while the developer has asked for them, worded as Discord words it (body and headers). */
async function rateLimited(db: Db): Promise<DiscordReply | null> {
  const [fault] = await db
    .update(simulatedDiscordFaults)
    .set({
      rateLimitedRequests: sql`${simulatedDiscordFaults.rateLimitedRequests} - 1`,
      requests: sql`${simulatedDiscordFaults.requests} + 1`,
    })
    .where(sql`${simulatedDiscordFaults.id} = 1 and ${simulatedDiscordFaults.rateLimitedRequests} > 0`)
    .returning({ retryAfter: simulatedDiscordFaults.retryAfterSeconds, global: simulatedDiscordFaults.globalLimit });
  if (!fault) {
    await db
      .update(simulatedDiscordFaults)
      .set({ requests: sql`${simulatedDiscordFaults.requests} + 1` })
      .where(eq(simulatedDiscordFaults.id, 1));
    return null;
  }
  const global = fault.global === 1;
  const headers: Record<string, string> = {
    "retry-after": String(fault.retryAfter),
    "x-ratelimit-limit": "10",
    "x-ratelimit-remaining": "0",
    "x-ratelimit-reset-after": String(fault.retryAfter),
    "x-ratelimit-scope": global ? "global" : "user",
  };
  if (global) headers["x-ratelimit-global"] = "true";
  return json(
    429,
    { message: "You are being rate limited.", retry_after: fault.retryAfter, global, code: global ? 0 : undefined },
    headers,
  );
}

/** The bot's highest role position and whether it may manage roles. */
async function botPower(db: Db): Promise<{ top: number; manageRoles: boolean }> {
  const member = await db
    .select({ roles: simulatedDiscordMembers.roles })
    .from(simulatedDiscordMembers)
    .where(eq(simulatedDiscordMembers.userId, SIMULATED_BOT_ID))
    .get();
  const ids = member ? parseRoles(member.roles) : [];
  const roles = await db.select().from(simulatedDiscordRoles);
  const held = roles.filter((role) => ids.includes(role.id));
  return {
    top: Math.max(0, ...held.map((role) => role.position)),
    manageRoles: held.some((role) => (BigInt(role.permissions) & MANAGE_ROLES) !== 0n),
  };
}

const memberBody = (row: typeof simulatedDiscordMembers.$inferSelect) => ({
  user: { id: row.userId, username: row.username },
  roles: parseRoles(row.roles),
  joined_at: new Date(row.joinedAt).toISOString(),
  nick: null,
  deaf: false,
  mute: false,
});

async function mayHandOut(db: Db, roleIds: string[]): Promise<DiscordReply | null> {
  const roles = await db.select().from(simulatedDiscordRoles);
  for (const id of roleIds) {
    if (!roles.some((role) => role.id === id)) return error(404, DISCORD_ERRORS.unknownRole, "Unknown Role");
  }
  const bot = await botPower(db);
  const tooHigh = roles.some((role) => roleIds.includes(role.id) && role.position >= bot.top);
  return !bot.manageRoles || tooHigh ? error(403, DISCORD_ERRORS.missingPermissions, "Missing Permissions") : null;
}

async function handle(db: Db, method: string, parts: string[], body: () => Record<string, unknown>): Promise<DiscordReply> {
  if (method === "GET" && parts.join("/") === "users/@me") return json(200, { id: SIMULATED_BOT_ID, username: "Vertex Bot", bot: true });
  const [guilds, guildId, collection, userId, sub, roleId] = parts;
  if (guilds !== "guilds" || !guildId) return error(404, 0, "404: Not Found");
  if (guildId !== SIMULATED_GUILD_ID) return error(404, 10004, "Unknown Guild");
  if (collection === "roles" && method === "GET" && !userId) {
    const roles = await db.select().from(simulatedDiscordRoles).orderBy(simulatedDiscordRoles.position);
    return json(
      200,
      roles.map((role) => ({ ...role, managed: false, hoist: false, mentionable: false, color: 0 })),
    );
  }
  if (collection !== "members" || !userId) return error(404, 0, "404: Not Found");
  const member = await db.select().from(simulatedDiscordMembers).where(eq(simulatedDiscordMembers.userId, userId)).get();
  if (!sub) {
    if (method === "GET") return member ? json(200, memberBody(member)) : error(404, DISCORD_ERRORS.unknownMember, "Unknown Member");
    if (method === "PUT") {
      // Already in the guild: Discord answers 204 and changes nothing.
      if (member) return json(204, null);
      const { access_token: token, roles = [] } = body() as { access_token?: unknown; roles?: unknown };
      if (token !== simulatedAccessToken(userId)) return error(403, 50025, "Invalid OAuth2 access token");
      const roleIds = Array.isArray(roles) ? roles.map(String) : [];
      const refused = await mayHandOut(db, roleIds);
      if (refused) return refused;
      const [added] = await db
        .insert(simulatedDiscordMembers)
        .values({ userId, username: `user-${userId.slice(-4)}`, roles: JSON.stringify(roleIds), joinedAt: Date.now() })
        .returning();
      return json(201, memberBody(added!));
    }
  }
  if (sub === "roles" && roleId && (method === "PUT" || method === "DELETE")) {
    if (!member) return error(404, DISCORD_ERRORS.unknownMember, "Unknown Member");
    const refused = await mayHandOut(db, [roleId]);
    if (refused) return refused;
    const held = parseRoles(member.roles).filter((id) => id !== roleId);
    if (method === "PUT") held.push(roleId);
    await db
      .update(simulatedDiscordMembers)
      .set({ roles: JSON.stringify(held) })
      .where(eq(simulatedDiscordMembers.userId, userId));
    return json(204, null);
  }
  return error(405, 0, "405: Method Not Allowed");
}

/** The simulated API as a transport: any base URL, the path after `/api/v10`. */
export function simulatedDiscord(db: Db): DiscordTransport {
  return async (call) => {
    await ensureSimulatedGuild(db);
    if (!call.headers.Authorization?.startsWith("Bot ")) return error(401, 0, "401: Unauthorized");
    const limited = await rateLimited(db);
    if (limited) return limited;
    const path = new URL(call.url).pathname.replace(/^.*?\/api\/v\d+\//, "");
    const parts = path.split("/").map(decodeURIComponent);
    return handle(db, call.method, parts, () => {
      try {
        return call.body ? (JSON.parse(call.body) as Record<string, unknown>) : {};
      } catch {
        return {};
      }
    });
  };
}
