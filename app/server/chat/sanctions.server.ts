// Mutes and bans from the chat, chat-wide (decision 094): D1 keeps them; each room is told a
// member's state when their socket opens and again, at once, whenever staff change it.
import { and, desc, eq, gt, isNull, or } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import type { ChatSanction } from "~/lib/chat";
import type { Db } from "../platform/db/client.server";
import { chatSanctions, profiles } from "../platform/db/schema.server";

/** A member's chat standing: muted until when (null: not muted), banned or not. */
export interface Standing {
  mutedUntil: number | null;
  banned: boolean;
}

const open = (now: number) => and(isNull(chatSanctions.liftedAt), or(isNull(chatSanctions.until), gt(chatSanctions.until, now)));

export async function sanctionsOf(db: Db, userId: string, now = Date.now()): Promise<Standing> {
  const rows = await db
    .select({ kind: chatSanctions.kind, until: chatSanctions.until })
    .from(chatSanctions)
    .where(and(eq(chatSanctions.userId, userId), open(now)));
  const mutes = rows.filter((row) => row.kind === "mute").map((row) => row.until!);
  return { mutedUntil: mutes.length > 0 ? Math.max(...mutes) : null, banned: rows.some((row) => row.kind === "ban") };
}

/**
 * Replaces the member's open sanction of `kind` (if any) with a new one, in one batch: a second
 * mute sets a new end rather than adding up.
 */
export async function impose(
  db: Db,
  sanction: { userId: string; kind: "mute" | "ban"; until: number | null; reason: string; by: string },
  now: number,
): Promise<void> {
  await db.batch([
    db
      .update(chatSanctions)
      .set({ liftedAt: now, liftedBy: sanction.by })
      .where(and(eq(chatSanctions.userId, sanction.userId), eq(chatSanctions.kind, sanction.kind), isNull(chatSanctions.liftedAt))),
    db.insert(chatSanctions).values({
      userId: sanction.userId,
      kind: sanction.kind,
      until: sanction.until,
      reason: sanction.reason,
      createdBy: sanction.by,
      createdAt: now,
    }),
  ]);
}

/** Lifts the member's open sanction of `kind`: whether there was one in force. */
export async function lift(db: Db, userId: string, kind: "mute" | "ban", by: string, now: number): Promise<boolean> {
  const lifted = await db
    .update(chatSanctions)
    .set({ liftedAt: now, liftedBy: by })
    .where(and(eq(chatSanctions.userId, userId), eq(chatSanctions.kind, kind), open(now)))
    .returning({ id: chatSanctions.id });
  return lifted.length > 0;
}

const member = alias(profiles, "member");
const moderator = alias(profiles, "moderator");

/** The mutes and bans in force now, newest first, for the moderation page. */
export async function sanctionsInForce(db: Db, now = Date.now()): Promise<ChatSanction[]> {
  return db
    .select({
      id: chatSanctions.id,
      userId: chatSanctions.userId,
      username: member.username,
      kind: chatSanctions.kind,
      until: chatSanctions.until,
      reason: chatSanctions.reason,
      by: moderator.username,
      createdAt: chatSanctions.createdAt,
    })
    .from(chatSanctions)
    .leftJoin(member, eq(member.id, chatSanctions.userId))
    .leftJoin(moderator, eq(moderator.id, chatSanctions.createdBy))
    .where(open(now))
    .orderBy(desc(chatSanctions.createdAt))
    .limit(200);
}
