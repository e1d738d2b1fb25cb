// Staff moderating the chat (decision 094): removing a message or a member's last hour, muting and
// banning members from the chat, pins, and decisions on reports. Every action comes through the
// staff-action pipeline (the chat.moderate capability), is applied by the room (which tells its
// sockets at once and enforces it from then on) and is audited here, with who acted, on whom
// and why. A removal is claimed by the room's own conditional update; a decision on a report by
// closing its open reports; only the winner acts and audits.
import { eq } from "drizzle-orm";
import { PURGE_WINDOW_MS } from "~/lib/chat";
import { fail, ok, type Result } from "~/lib/result";
import type { ChatModeration } from "~/lib/schemas/chat";
import { MINUTE_MS } from "~/lib/time";
import type { Viewer } from "~/lib/viewer";
import { audit } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";
import { chatRooms, profiles } from "../platform/db/schema.server";
import { type ChatDeps, toEveryRoom } from "./chat-gateway.server";
import { decideReports } from "./reports.server";
import { activeRoomSlugs } from "./rooms.server";
import { impose, lift, sanctionsOf } from "./sanctions.server";

/** What a moderation did, for the page to say: how many messages it removed, and to whom. */
export interface Moderated {
  intent: ChatModeration["intent"];
  username: string | null;
  removed: number;
}

/** A removed message's words as the audit log keeps them. */
const excerpt = (content: string) => (content.length > 200 ? `${content.slice(0, 200)}…` : content);

async function usernameOf(db: Db, userId: string): Promise<string | null | undefined> {
  const row = await db.select({ username: profiles.username }).from(profiles).where(eq(profiles.id, userId)).get();
  return row?.username;
}

/** The member's chat standing, as D1 now holds it, told to every open room: their sockets follow at once. */
async function tellRooms(deps: ChatDeps, userId: string, now: number): Promise<void> {
  const standing = await sanctionsOf(deps.db, userId, now);
  await toEveryRoom(deps, (room) => room.applyStanding(userId, standing));
}

export async function moderate(
  deps: ChatDeps,
  staff: Viewer,
  input: ChatModeration,
  ip: string | null,
  now = Date.now(),
): Promise<Result<Moderated>> {
  const { db } = deps;
  const done = (username: string | null, removed = 0) => ok<Moderated>({ intent: input.intent, username, removed });

  if (input.intent === "dismiss") {
    const decided = await decideReports(db, input.report, "dismiss", staff.id, now);
    if (!decided.ok) return decided;
    const { room, messageId, authorId, closed } = decided.value;
    await audit(db, staff.id, "chat.report-dismiss", authorId ?? `chat-room:${room}`, { room, message: messageId, reports: closed }, ip);
    return done(authorId ? ((await usernameOf(db, authorId)) ?? null) : null);
  }

  if (input.intent === "delete" || input.intent === "pin" || input.intent === "unpin") {
    const room = await db.select({ slug: chatRooms.slug }).from(chatRooms).where(eq(chatRooms.slug, input.room)).get();
    if (!room) return fail("not-found", "There is no such chat room");
    const stub = deps.room(input.room);
    if (input.intent === "pin") {
      const pinned = await stub.pin(input.message, staff.id);
      if (pinned === "not-found") return fail("not-found", "That message is not in this room");
      if (pinned === "already") return fail("conflict", "That message is pinned already");
      if (pinned === "full") return fail("conflict", "This room has as many pins as it shows; unpin one first");
      await audit(db, staff.id, "chat.pin", `chat-room:${input.room}`, { message: input.message, content: excerpt(pinned.content) }, ip);
      return done(pinned.username);
    }
    if (input.intent === "unpin") {
      if (!(await stub.unpin(input.message))) return fail("conflict", "That message is not pinned");
      await audit(db, staff.id, "chat.unpin", `chat-room:${input.room}`, { message: input.message }, ip);
      return done(null);
    }
    if (input.report !== null) {
      const decided = await decideReports(db, input.report, "delete", staff.id, now, { room: input.room, messageId: input.message });
      if (!decided.ok) return decided;
    }
    const { removed, missing } = await stub.removeMessages(staff.id, { ids: [input.message] });
    const [message] = removed;
    if (!message) {
      // Reported, and gone meanwhile: what the report asked for is done.
      if (input.report !== null) return done(null);
      return missing.length > 0
        ? fail("not-found", "That message is not in this room")
        : fail("conflict", "That message has been removed already");
    }
    await audit(
      db,
      staff.id,
      "chat.delete",
      message.userId,
      {
        room: input.room,
        message: message.id,
        content: excerpt(message.content),
        reason: input.reason,
        ...(input.report ? { report: input.report } : {}),
      },
      ip,
    );
    return done(message.username, 1);
  }

  const username = await usernameOf(db, input.member);
  if (username === undefined) return fail("not-found", "There is no such member");

  if (input.intent === "unmute" || input.intent === "unban") {
    const kind = input.intent === "unmute" ? "mute" : "ban";
    if (!(await lift(db, input.member, kind, staff.id, now))) {
      return fail("conflict", `${username} is not ${kind === "mute" ? "muted" : "banned from the chat"}`);
    }
    await tellRooms(deps, input.member, now);
    await audit(db, staff.id, `chat.${input.intent}`, input.member, {}, ip);
    return done(username);
  }

  if (input.intent === "ban" && (await sanctionsOf(db, input.member, now)).banned) {
    return fail("conflict", `${username} is banned from the chat already`);
  }
  if (input.report !== null) {
    const decided = await decideReports(db, input.report, input.intent, staff.id, now, { authorId: input.member });
    if (!decided.ok) return decided;
  }
  const byReport = input.report !== null ? { report: input.report } : {};

  if (input.intent === "purge") {
    const since = now - PURGE_WINDOW_MS;
    const slugs = await activeRoomSlugs(db);
    const results = await Promise.allSettled(
      slugs.map((slug) => deps.room(slug).removeMessages(staff.id, { userId: input.member, since })),
    );
    const rooms: Record<string, number> = {};
    results.forEach((result, i) => {
      if (result.status === "rejected") console.error(`chat: removing from ${slugs[i]} failed:`, result.reason);
      else if (result.value.removed.length > 0) rooms[slugs[i]!] = result.value.removed.length;
    });
    const removed = Object.values(rooms).reduce((sum, n) => sum + n, 0);
    await audit(db, staff.id, "chat.purge", input.member, { reason: input.reason, removed, rooms, ...byReport }, ip);
    return done(username, removed);
  }

  const until = input.intent === "mute" ? now + input.minutes * MINUTE_MS : null;
  await impose(db, { userId: input.member, kind: input.intent, until, reason: input.reason, by: staff.id }, now);
  await tellRooms(deps, input.member, now);
  await audit(
    db,
    staff.id,
    `chat.${input.intent}`,
    input.member,
    input.intent === "mute" ? { minutes: input.minutes, until, reason: input.reason, ...byReport } : { reason: input.reason, ...byReport },
    ip,
  );
  return done(username);
}
