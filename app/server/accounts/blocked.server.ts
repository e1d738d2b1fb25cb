// The blocklist at the account doors (decision 093): a blocked address, range or country cannot
// sign up or sign in, nor can a blocked e-mail address or domain; a blocked Discord account cannot
// be linked or used to sign in. Each refusal is audited once a minute per address at most.
import { fail, ok, type Result } from "~/lib/result";
import { blocksMatching } from "../blocks/blocks.server";
import { audit, lastAuditedAt } from "../platform/audit.server";
import type { Caller } from "../platform/caller.server";
import type { Db } from "../platform/db/client.server";

export const BLOCKED_HERE = "Sign-ups and sign-ins from here are blocked by the shop. Contact support if you think this is a mistake.";
export const BLOCKED_DISCORD = "This Discord account is blocked by the shop.";

/** `forbidden` when the caller's address or country, or the e-mail address given, is blocked. */
export async function refusedByBlocks(
  db: Db,
  caller: Pick<Caller, "ip" | "country">,
  email: string | null,
  now = Date.now(),
): Promise<Result> {
  const matches = await blocksMatching(db, { ip: caller.ip, country: caller.country ?? null, email }, now);
  if (matches.length === 0) return ok();
  if ((await lastAuditedAt(db, "sign-in.blocked", { ip: caller.ip }, now - 60_000)) === undefined)
    await audit(db, null, "sign-in.blocked", `block:${matches[0]!.id}`, { kind: matches[0]!.kind }, caller.ip);
  return fail("forbidden", BLOCKED_HERE);
}

/** `forbidden` when the Discord account is blocked. */
export async function refusedDiscord(db: Db, discordId: string, now = Date.now()): Promise<Result> {
  return (await blocksMatching(db, { discord: discordId }, now)).length > 0 ? fail("forbidden", BLOCKED_DISCORD) : ok();
}
