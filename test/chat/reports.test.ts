// Members reporting messages, and the staff queue that acts on them in one click.
import { and, desc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog, chatReports } from "~/server/platform/db/schema.server";
import { call, db, unique } from "../helpers";
import { join, manageRooms, member, moderate, newRoom } from "./chat-client";

const report = (cookie: string, room: string, form: Record<string, string>) =>
  call(`/dashboard/chat/${room}`, { form: { intent: "report", ...form }, cookie });

const reportsOf = (room: string, message: number) =>
  db
    .select()
    .from(chatReports)
    .where(and(eq(chatReports.room, room), eq(chatReports.messageId, message)))
    .orderBy(chatReports.id);

describe("reports", () => {
  it("are sent once per member with a reason; staff see them with the message's context and remove it in one click", async () => {
    const staff = await member("support");
    const room = await newRoom(staff.cookie);
    const alice = await join({ room, name: "alice" });
    const bob = await join({ room, name: "bob" });
    const before = unique("context before ");
    alice.send({ type: "send", content: before });
    await bob.next("message", (f) => f.message.content === before);
    const offending = unique("you are all idiots ");
    bob.send({ type: "send", content: offending });
    const { message } = await alice.next("message", (f) => f.message.content === offending);
    const after = unique("context after ");
    alice.send({ type: "send", content: after });
    await alice.next("message", (f) => f.message.content === after);

    expect((await report(alice.cookie, room, { message: String(message.id), reason: "" })).status).toBe(400);
    expect((await report(alice.cookie, room, { message: String(message.id), reason: "Insults" })).status).toBe(200);
    expect((await report(alice.cookie, room, { message: String(message.id), reason: "Insults again" })).status).toBe(409);
    const carol = await member();
    expect((await report(carol.cookie, room, { message: String(message.id), reason: "Rude" })).status).toBe(200);
    const [first] = await reportsOf(room, message.id);
    expect(first).toMatchObject({ reporterId: alice.id, authorId: bob.id, content: offending, reason: "Insults", state: "open" });

    // The queue is staff's: a member gets 403, staff see the message, the reasons and what came around it.
    expect((await call("/dashboard/chat-moderation", { cookie: carol.cookie })).status).toBe(403);
    const queue = await (await call("/dashboard/chat-moderation", { cookie: staff.cookie })).text();
    for (const text of [offending, "Insults", "Rude", before, after]) expect(queue).toContain(text);

    // One click: the message is removed for everyone and both reports close.
    const oneClick = { intent: "delete", room, message: String(message.id), reason: "Reported: Insults", report: String(first!.id) };
    expect((await moderate(carol.cookie, oneClick)).status).toBe(403);
    expect((await moderate(staff.cookie, oneClick)).status).toBe(200);
    expect(await alice.next("removed")).toEqual({ type: "removed", ids: [message.id] });
    expect((await reportsOf(room, message.id)).map((r) => [r.state, r.decidedBy, r.decision])).toEqual([
      ["actioned", staff.id, "delete"],
      ["actioned", staff.id, "delete"],
    ]);
    // Decided once: a second click (another member of staff, a second tab) is told.
    expect((await moderate(staff.cookie, { ...oneClick, intent: "mute", member: bob.id, minutes: "60" })).status).toBe(409);
    const closedQueue = await (await call("/dashboard/chat-moderation", { cookie: staff.cookie })).text();
    expect(closedQueue).not.toContain(offending);
    alice.close();
    bob.close();
  });

  it("can be dismissed, which leaves the message and is audited; mute and ban close them too", async () => {
    const staff = await member("admin");
    const room = await newRoom(staff.cookie);
    const alice = await join({ room, name: "alice" });
    const bob = await join({ room, name: "bob" });
    const harmless = unique("a fair opinion ");
    bob.send({ type: "send", content: harmless });
    const { message } = await alice.next("message", (f) => f.message.content === harmless);
    expect((await report(alice.cookie, room, { message: String(message.id), reason: "I disagree" })).status).toBe(200);
    const [filed] = await reportsOf(room, message.id);

    expect((await moderate(alice.cookie, { intent: "dismiss", report: String(filed!.id) })).status).toBe(403);
    expect((await moderate(staff.cookie, { intent: "dismiss", report: String(filed!.id) })).status).toBe(200);
    expect((await reportsOf(room, message.id))[0]).toMatchObject({ state: "dismissed", decidedBy: staff.id });
    await alice.settled();
    expect(alice.frames.some((f) => f.type === "removed")).toBe(false);
    const entry = await db.select().from(auditLog).where(eq(auditLog.action, "chat.report-dismiss")).orderBy(desc(auditLog.id)).get();
    expect(entry).toMatchObject({ actorUserId: staff.id, subject: bob.id });

    const rude = unique("rude again ");
    bob.send({ type: "send", content: rude });
    const second = (await alice.next("message", (f) => f.message.content === rude)).message;
    expect((await report(alice.cookie, room, { message: String(second.id), reason: "Rude" })).status).toBe(200);
    const [again] = await reportsOf(room, second.id);
    const mute = { intent: "mute", member: bob.id, minutes: "60", reason: "Reported: Rude", report: String(again!.id) };
    expect((await moderate(staff.cookie, mute)).status).toBe(200);
    expect((await reportsOf(room, second.id))[0]).toMatchObject({ state: "actioned", decision: "mute" });
    await bob.next("you", (f) => f.you.mutedUntil !== null);
    alice.close();
    bob.close();
  });

  it("are refused for a message that does not exist or a room the member cannot see", async () => {
    const staff = await member("support");
    const room = await newRoom(staff.cookie);
    const alice = await join({ room, name: "alice" });
    expect((await report(alice.cookie, room, { message: "987654321", reason: "Spam" })).status).toBe(404);
    expect((await report(alice.cookie, "no-such-room", { message: "1", reason: "Spam" })).status).toBe(404);
    alice.send({ type: "send", content: "in a room about to close" });
    const { message } = await alice.next("message");
    expect((await manageRooms(staff.cookie, { intent: "archive", room })).status).toBe(200);
    expect((await report(alice.cookie, room, { message: String(message.id), reason: "Spam" })).status).toBe(404);
    expect((await call(`/dashboard/chat/${room}`, { form: { intent: "report", message: String(message.id), reason: "x" } })).status).toBe(
      302,
    );
  });
});
