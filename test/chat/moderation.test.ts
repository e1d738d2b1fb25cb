// Staff moderating the chat through the Worker: every action by a moderator (support or admin)
// and refused for a member; its effect as every member's socket sees it, whatever room they are
// in, after reconnecting and after the room hibernates; and its entry in the audit log.
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { and, desc, eq } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { HOUR_MS, MINUTE_MS } from "~/lib/time";
import { auditLog } from "~/server/platform/db/schema.server";
import { call, db, unique } from "../helpers";
import { join, member, moderate, newRoom, open, roomStub } from "./chat-client";

afterEach(() => {
  vi.useRealTimers();
});

async function lastAudit(action: string, subject: string) {
  const row = await db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.action, action), eq(auditLog.subject, subject)))
    .orderBy(desc(auditLog.id))
    .get();
  return row ? { ...row, detail: JSON.parse(row.detail ?? "{}") as Record<string, unknown> } : undefined;
}

describe("removing a message", () => {
  it("is refused to a member, and done by support for everyone in the room, shown as removed by staff, and audited", async () => {
    const staff = await member("support");
    const room = await newRoom(staff.cookie);
    const alice = await join({ room, name: "alice" });
    const bob = await join({ room, name: "bob" });
    const text = unique("buy cheap keys at ");
    alice.send({ type: "send", content: text });
    const { message } = await bob.next("message", (f) => f.message.content === text);
    await alice.next("message", (f) => f.message.id === message.id);

    const refused = await moderate(bob.cookie, { intent: "delete", room, message: String(message.id), reason: "Spam" });
    expect(refused.status).toBe(403);
    await bob.settled();
    expect(bob.frames.some((f) => f.type === "removed")).toBe(false);

    const removed = await moderate(staff.cookie, { intent: "delete", room, message: String(message.id), reason: "Spam" });
    expect(removed.status).toBe(200);
    expect(await alice.next("removed")).toEqual({ type: "removed", ids: [message.id] });
    expect(await bob.next("removed")).toEqual({ type: "removed", ids: [message.id] });

    // Whoever joins later sees it removed where it was, its words gone.
    const carol = await open((await member()).cookie, room, "carol");
    const history = await carol.next("history");
    expect(history.messages.find((m) => m.id === message.id)).toMatchObject({ removed: true, content: "", userId: alice.id });
    expect(JSON.stringify(history)).not.toContain(text);

    const entry = await lastAudit("chat.delete", alice.id);
    expect(entry).toMatchObject({ actorUserId: staff.id, detail: { room, message: message.id, reason: "Spam" } });
    expect(String(entry!.detail.content)).toContain("buy cheap keys");

    // Removing it twice: the second is told it is gone already.
    expect((await moderate(staff.cookie, { intent: "delete", room, message: String(message.id), reason: "Again" })).status).toBe(409);
    expect((await moderate(staff.cookie, { intent: "delete", room, message: "999999999", reason: "Spam" })).status).toBe(404);
    expect((await moderate(staff.cookie, { intent: "delete", room, message: String(message.id), reason: "" })).status).toBe(400);
    for (const c of [alice, bob, carol]) c.close();
  });
});

describe("muting a member", () => {
  it("refuses their messages with the time left on every socket, after reconnecting and after the room hibernates, until it is lifted", async () => {
    const staff = await member("admin");
    const room = await newRoom(staff.cookie);
    const alice = await join({ room, name: "alice" });
    const aliceElsewhere = await open(alice.cookie, room, "alice's second tab");
    await aliceElsewhere.next("history");
    const bob = await join({ room, name: "bob" });

    expect((await moderate(bob.cookie, { intent: "mute", member: alice.id, minutes: "10", reason: "Flooding" })).status).toBe(403);
    alice.send({ type: "send", content: "not muted yet" });
    await bob.next("message", (f) => f.message.content === "not muted yet");

    expect((await moderate(staff.cookie, { intent: "mute", member: alice.id, minutes: "10", reason: "Flooding" })).status).toBe(200);
    const told = await alice.next("you", (f) => f.you.mutedUntil !== null);
    expect(told.you.mutedUntil! - Date.now()).toBeGreaterThan(9 * MINUTE_MS);

    aliceElsewhere.send({ type: "send", content: "from the other tab" });
    const refused = await aliceElsewhere.next("error");
    expect(refused).toMatchObject({ action: "send", message: "You are muted for 10 minutes more." });
    expect(refused.until).toBe(told.you.mutedUntil);

    // The room is evicted from memory; its sockets hibernate and stay open.
    await evictDurableObject(roomStub(room));
    alice.send({ type: "send", content: "after hibernation" });
    expect((await alice.next("error")).message).toMatch(/^You are muted for \d+ minutes more\.$/);

    // A new socket (a reload, another device) is muted too.
    alice.close();
    const again = await open(alice.cookie, room, "alice again");
    expect((await again.next("history")).you.mutedUntil).toBe(told.you.mutedUntil);
    again.send({ type: "send", content: "after reconnecting" });
    expect((await again.next("error")).message).toMatch(/muted/);

    // Muting is chat-wide: another room refuses them too.
    const general = await open(alice.cookie, undefined, "alice in general");
    await general.next("history");
    general.send({ type: "send", content: "in general" });
    expect((await general.next("error")).message).toMatch(/muted/);

    await bob.settled();
    expect(bob.frames.some((f) => f.type === "message" && f.message.userId === alice.id && f.message.content !== "not muted yet")).toBe(
      false,
    );

    const entry = await lastAudit("chat.mute", alice.id);
    expect(entry).toMatchObject({ actorUserId: staff.id, detail: { minutes: 10, reason: "Flooding" } });

    // Time passes: a mute ends by itself.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(told.you.mutedUntil! + 1000);
    again.send({ type: "send", content: "the mute ran out" });
    expect((await bob.next("message", (f) => f.message.content === "the mute ran out")).message.userId).toBe(alice.id);
    vi.useRealTimers();

    // Muted again, then lifted by staff before it ends.
    expect((await moderate(staff.cookie, { intent: "mute", member: alice.id, minutes: "60", reason: "Again" })).status).toBe(200);
    await again.next("you", (f) => f.you.mutedUntil !== null);
    expect((await moderate(bob.cookie, { intent: "unmute", member: alice.id })).status).toBe(403);
    expect((await moderate(staff.cookie, { intent: "unmute", member: alice.id })).status).toBe(200);
    await again.next("you", (f) => f.you.mutedUntil === null);
    again.send({ type: "send", content: "unmuted" });
    await bob.next("message", (f) => f.message.content === "unmuted");
    expect(await lastAudit("chat.unmute", alice.id)).toMatchObject({ actorUserId: staff.id });
    for (const c of [aliceElsewhere, again, general, bob]) c.close();
  });

  it("takes only the durations staff can choose", async () => {
    const staff = await member("support");
    const target = await member();
    for (const minutes of ["0", "-5", "abc", String(31 * 24 * 60)]) {
      expect((await moderate(staff.cookie, { intent: "mute", member: target.id, minutes, reason: "Flooding" })).status, minutes).toBe(400);
    }
    expect((await moderate(staff.cookie, { intent: "mute", member: "no-such-member", minutes: "10", reason: "Flooding" })).status).toBe(
      404,
    );
  });
});

describe("banning a member from the chat", () => {
  it("closes their sockets in every room and has the room refuse new ones, across hibernation, without banning them from the shop", async () => {
    const staff = await member("support");
    const room = await newRoom(staff.cookie);
    const alice = await join({ room, name: "alice" });
    const aliceInGeneral = await open(alice.cookie, undefined, "alice in general");
    await aliceInGeneral.next("history");
    const bob = await join({ room, name: "bob" });

    expect((await moderate(bob.cookie, { intent: "ban", member: alice.id, reason: "Abuse" })).status).toBe(403);
    expect((await moderate(staff.cookie, { intent: "ban", member: alice.id, reason: "Abuse" })).status).toBe(200);
    for (const socket of [alice, aliceInGeneral]) {
      expect(await socket.next("closed")).toMatchObject({ reason: "banned" });
      expect(await socket.closed).toBe(4003);
    }

    // The room itself refuses the next socket: it is told why and closed, with no history.
    await evictDurableObject(roomStub(room));
    const refused = await open(alice.cookie, room, "alice banned");
    expect(await refused.next("closed")).toMatchObject({ reason: "banned", message: "You are banned from the chat." });
    expect(await refused.closed).toBe(4003);
    expect(refused.frames.some((f) => f.type === "history")).toBe(false);

    // Not banned from the shop: the hub still opens.
    expect((await call("/dashboard/subscriptions", { cookie: alice.cookie })).status).toBe(200);
    expect(await lastAudit("chat.ban", alice.id)).toMatchObject({ actorUserId: staff.id, detail: { reason: "Abuse" } });

    expect((await moderate(bob.cookie, { intent: "unban", member: alice.id })).status).toBe(403);
    expect((await moderate(staff.cookie, { intent: "unban", member: alice.id })).status).toBe(200);
    const back = await open(alice.cookie, room, "alice unbanned");
    await back.next("history");
    back.send({ type: "send", content: "I am back" });
    await bob.next("message", (f) => f.message.content === "I am back");
    expect(await lastAudit("chat.unban", alice.id)).toMatchObject({ actorUserId: staff.id });
    back.close();
    bob.close();
  });
});

describe("deleting a member's last hour", () => {
  it("removes what they wrote in the last hour in every room, and nothing older or anyone else's", async () => {
    const staff = await member("admin");
    const [first, second] = [await newRoom(staff.cookie), await newRoom(staff.cookie)];
    const alice = await join({ room: first, name: "alice" });
    const aliceSecond = await open(alice.cookie, second, "alice in the second room");
    await aliceSecond.next("history");
    const bob = await join({ room: first, name: "bob" });
    const older = await runInDurableObject(roomStub(first), (_i, state) => {
      const at = Date.now() - 2 * HOUR_MS;
      return state.storage.sql
        .exec<{ id: number }>(
          "insert into messages (user_id, username, content, created_at) values (?, ?, ?, ?) returning id",
          alice.id,
          alice.username,
          "two hours ago",
          at,
        )
        .one().id;
    });
    const sent: number[] = [];
    for (const [socket, content] of [
      [alice, "spam one"],
      [aliceSecond, "spam two"],
      [alice, "spam three"],
    ] as const) {
      socket.send({ type: "send", content });
      sent.push((await socket.next("message", (f) => f.message.content === content)).message.id);
    }
    bob.send({ type: "send", content: "bob stays" });
    const bobs = (await bob.next("message", (f) => f.message.content === "bob stays")).message.id;

    expect((await moderate(bob.cookie, { intent: "purge", member: alice.id, reason: "Spam run" })).status).toBe(403);
    expect((await moderate(staff.cookie, { intent: "purge", member: alice.id, reason: "Spam run" })).status).toBe(200);
    expect((await bob.next("removed")).ids.sort()).toEqual([sent[0], sent[2]].sort());
    expect((await aliceSecond.next("removed")).ids).toEqual([sent[1]]);

    const kept = await runInDurableObject(roomStub(first), (_i, state) =>
      state.storage.sql
        .exec<{ id: number; removed_at: number | null }>("select id, removed_at from messages where id in (?, ?)", older, bobs)
        .toArray(),
    );
    expect(kept.map((row) => row.removed_at)).toEqual([null, null]);
    expect(await lastAudit("chat.purge", alice.id)).toMatchObject({ actorUserId: staff.id, detail: { reason: "Spam run", removed: 3 } });
    for (const c of [alice, aliceSecond, bob]) c.close();
  });
});

describe("pinned messages", () => {
  it("are pinned by staff only, shown at the top of the room to everyone, and unpinned", async () => {
    const staff = await member("support");
    const room = await newRoom(staff.cookie);
    const alice = await join({ room, name: "alice" });
    alice.send({ type: "send", content: "Read the rules first" });
    const { message } = await alice.next("message");

    expect((await moderate(alice.cookie, { intent: "pin", room, message: String(message.id) })).status).toBe(403);
    expect((await moderate(staff.cookie, { intent: "pin", room, message: String(message.id) })).status).toBe(200);
    expect((await alice.next("pins")).pins.map((m) => m.content)).toEqual(["Read the rules first"]);

    const later = await open((await member()).cookie, room, "later");
    expect((await later.next("history")).pins.map((m) => m.id)).toEqual([message.id]);
    expect((await moderate(staff.cookie, { intent: "pin", room, message: String(message.id) })).status).toBe(409);

    expect((await moderate(alice.cookie, { intent: "unpin", room, message: String(message.id) })).status).toBe(403);
    expect((await moderate(staff.cookie, { intent: "unpin", room, message: String(message.id) })).status).toBe(200);
    expect((await later.next("pins")).pins).toEqual([]);
    expect(await lastAudit("chat.pin", `chat-room:${room}`)).toMatchObject({ actorUserId: staff.id, detail: { message: message.id } });
    alice.close();
    later.close();
  });
});

describe("the moderation page", () => {
  it("is for staff only, and its link sits in the back office's Community group", async () => {
    const plain = await member();
    expect((await call("/dashboard/chat-moderation", { cookie: plain.cookie })).status).toBe(403);
    const support = await member("support");
    const page = await call("/dashboard/chat-moderation", { cookie: support.cookie });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Chat Moderation");
  });
});
