// Members' reports of chat messages and the staff queue (decision 094). A report copies the
// message and the few around it from the room, so staff judge what was there whatever happens to
// it after; a decision closes every open report of the message in one conditional statement, so
// two members of staff cannot both act on it.
import { and, asc, eq } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import type { ReportedMessage } from "~/lib/chat";
import { fail, ok, type Result } from "~/lib/result";
import type { Viewer } from "~/lib/viewer";
import type { Db } from "../platform/db/client.server";
import { chatReports, chatRooms, profiles } from "../platform/db/schema.server";
import type { ChatDeps } from "./chat-gateway.server";
import { roomFor } from "./rooms.server";

/** The open reports the queue shows at once, oldest first. */
const QUEUE_LIMIT = 200;

export async function reportMessage(
  deps: ChatDeps,
  viewer: Viewer,
  slug: string,
  input: { message: number; reason: string },
  now = Date.now(),
): Promise<Result<undefined>> {
  const room = await roomFor(deps.db, viewer, slug, now);
  if (!room.ok) return fail("not-found", room.problem.code === "not-found" ? room.problem.message : "There is no such chat room");
  const snapshot = await deps.room(slug).reportSnapshot(input.message);
  if (!snapshot) return fail("not-found", "That message is not in this room any more");
  const { message, context } = snapshot;
  if (message.removed) return fail("conflict", "Staff have removed that message already");
  if (message.userId === viewer.id) return fail("invalid", "You cannot report your own message");
  const [filed] = await deps.db
    .insert(chatReports)
    .values({
      room: slug,
      messageId: message.id,
      authorId: message.userId,
      authorName: message.username,
      content: message.content,
      messageAt: message.createdAt,
      context,
      reporterId: viewer.id,
      reason: input.reason,
      createdAt: now,
    })
    .onConflictDoNothing()
    .returning({ id: chatReports.id });
  // The author may have left the shop meanwhile (no account to point at): the copy stands alone.
  return filed ? ok() : fail("conflict", "You have reported this message already");
}

const reporter = alias(profiles, "reporter");

/** Staff's queue: each reported message once, with its context and every open report of it, the longest waiting first. */
export async function reportQueue(db: Db): Promise<ReportedMessage[]> {
  const rows = await db
    .select({ report: chatReports, roomName: chatRooms.name, reporter: reporter.username })
    .from(chatReports)
    .innerJoin(chatRooms, eq(chatRooms.slug, chatReports.room))
    .leftJoin(reporter, eq(reporter.id, chatReports.reporterId))
    .where(eq(chatReports.state, "open"))
    .orderBy(asc(chatReports.createdAt), asc(chatReports.id))
    .limit(QUEUE_LIMIT);
  const byMessage = new Map<string, ReportedMessage>();
  for (const { report, roomName, reporter: reportedBy } of rows) {
    const key = `${report.room}:${report.messageId}`;
    const entry =
      byMessage.get(key) ??
      byMessage
        .set(key, {
          room: report.room,
          roomName,
          messageId: report.messageId,
          authorId: report.authorId,
          authorName: report.authorName,
          content: report.content,
          messageAt: report.messageAt,
          context: report.context,
          reports: [],
        })
        .get(key)!;
    entry.reports.push({ id: report.id, reporter: reportedBy, reason: report.reason, createdAt: report.createdAt });
  }
  return [...byMessage.values()];
}

export type ReportDecision = "delete" | "purge" | "mute" | "ban" | "dismiss";

/**
 * Claims the decision on a report: every open report of the same message closes in one
 * conditional statement, and only the caller that closed them acts. Answers the report.
 */
export async function decideReports(
  db: Db,
  reportId: number,
  decision: ReportDecision,
  staffId: string,
  now: number,
  about: { room?: string; messageId?: number; authorId?: string } = {},
): Promise<Result<{ room: string; messageId: number; authorId: string | null; closed: number }>> {
  const report = await db.select().from(chatReports).where(eq(chatReports.id, reportId)).get();
  if (!report) return fail("not-found", "There is no such report");
  const matches =
    (about.room === undefined || about.room === report.room) &&
    (about.messageId === undefined || about.messageId === report.messageId) &&
    (about.authorId === undefined || about.authorId === report.authorId);
  if (!matches) return fail("invalid", "That report is about another message");
  const closed = await db
    .update(chatReports)
    .set({ state: decision === "dismiss" ? "dismissed" : "actioned", decidedBy: staffId, decidedAt: now, decision })
    .where(and(eq(chatReports.room, report.room), eq(chatReports.messageId, report.messageId), eq(chatReports.state, "open")))
    .returning({ id: chatReports.id });
  if (closed.length === 0) return fail("conflict", "This report has been decided already");
  return ok({ room: report.room, messageId: report.messageId, authorId: report.authorId, closed: closed.length });
}
