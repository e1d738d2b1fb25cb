// Linking Discord, seen from the role sync: a member who links is added to the shop's server with
// the roles their licences justify, in one step (OAuth2 `guilds.join`), and a sync follows to make
// sure. Without a Discord application (development and tests), a member links the simulated Discord
// the same way: their password first (decision 044), then the same link, audited and e-mailed.
import { audit } from "../platform/audit.server";
import type { MailingDeps } from "../platform/mail.server";
import { type DiscordLink, discordSettingsOf, isDiscordConfigured, recordDiscordLink } from "../accounts/discord-login.server";
import type { Db } from "../platform/db/client.server";
import { type DiscordEnv, type DiscordSetup, desiredRolesOf, discordSetup, memberRoleSync, roleSettings } from "./role-setup.server";
import { followLink, queueRoleSync } from "./role-sync.server";
import { simulatedAccessToken } from "./simulated-discord.server";
import type { Result } from "~/lib/result";

export interface LinkDeps extends MailingDeps {
  setup: DiscordSetup;
  queue: Queue;
}

/** Into the server with the roles the member should have, then a sync (which also handles any failure here). */
export async function joinServerOnLink(deps: LinkDeps, userId: string, link: DiscordLink, now = Date.now()): Promise<void> {
  const { db, setup } = deps;
  const settings = await roleSettings(db);
  if (!setup.api || !settings.guildId || settings.rules.length === 0) return;
  // A Discord account linked before is released: the sync takes the shop's roles back from it.
  await followLink(db, userId, link.discordId, now);
  const roles = (await desiredRolesOf(db, [userId], now)).get(userId) ?? [];
  const added = await setup.api.addMember(settings.guildId, link.discordId, link.accessToken, roles);
  // 201 with the member: added with the roles. 204 (already a member) or a failure: the sync decides.
  if (added.ok && added.value !== null) await audit(db, null, "discord.member.add", userId, { discordId: link.discordId, roles });
  await queueRoleSync(deps.queue, [userId]);
}

/** The simulated Discord account of a shop member: a stable id made from theirs. */
export async function simulatedDiscordIdOf(userId: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(userId)));
  const number = digest.slice(0, 8).reduce((n, byte) => (n << 8n) | BigInt(byte), 0n);
  return String(1_300_000_000_000_000_000n + (number % 100_000_000_000_000_000n));
}

/** Links the member's simulated Discord account (the password was checked first), and joins the server. */
export async function linkSimulatedDiscord(
  deps: LinkDeps,
  user: { id: string; username: string },
  ip: string | null,
  now = Date.now(),
): Promise<Result> {
  const discordId = await simulatedDiscordIdOf(user.id);
  const linked = await recordDiscordLink(deps, user.id, { id: discordId, username: user.username }, ip, now);
  if (linked.ok) await joinServerOnLink(deps, user.id, { discordId, accessToken: simulatedAccessToken(discordId) }, now);
  return linked;
}

/**
 * What the member's Security page shows of Discord: the link (or how to make one: through Discord,
 * or the simulated Discord in development) and where their roles stand. Null: no way to link.
 */
export async function discordCardOf(db: Db, env: DiscordEnv & Pick<Env, "DISCORD_CLIENT_ID" | "DISCORD_CLIENT_SECRET">, userId: string) {
  const simulated = !isDiscordConfigured(env) && discordSetup(env, db).simulated;
  if (!isDiscordConfigured(env) && !simulated) return null;
  const [settings, roles] = await Promise.all([discordSettingsOf(db, userId), memberRoleSync(db, userId)]);
  return { ...settings, simulated, roles };
}
