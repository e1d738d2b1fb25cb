// A room's history: pages back by a cursor that new messages never shift, back to the room's
// retention (older messages deleted by the room's alarm); mentions and unread counts kept per
// member; presence and typing.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { type ChatMessage, HISTORY_LIMIT, HISTORY_PAGE } from "~/lib/chat";
import { DAY_MS } from "~/lib/time";
import { unique } from "../helpers";
import { type Client, join, member, newRoom, open, roomStub, sidebarRooms } from "./chat-client";

/** Stores `count` messages by a seeder, `ageMs` old, straight into the room's storage; their ids. */
function seed(room: string, count: number, ageMs = 0, label = "seed"): Promise<number[]> {
  return runInDurableObject(roomStub(room), (_i, state) => {
    const at = Date.now() - ageMs;
    const ids: number[] = [];
    for (let i = 0; i < count; i++) {
      ids.push(
        state.storage.sql
          .exec<{ id: number }>(
            "insert into messages (user_id, username, content, created_at) values ('seeder', 'seeder', ?, ?) returning id",
            `${label}-${i}`,
            at + i,
          )
          .one().id,
      );
    }
    return ids;
  });
}

/** Every older page down to the first, by the cursor of each page's oldest message. */
async function scrollBack(client: Client, from: number, between?: (page: number) => Promise<void>): Promise<ChatMessage[]> {
  const seen: ChatMessage[] = [];
  let before = from;
  for (let page = 0; ; page++) {
    client.send({ type: "older", before });
    const older = await client.next("older", (f) => f.before === before);
    expect(older.messages.length).toBeLessThanOrEqual(HISTORY_PAGE);
    seen.unshift(...older.messages);
    if (!older.more) return seen;
    before = older.messages[0]!.id;
    await between?.(page);
  }
}

describe("history", () => {
  it("pages back by cursor to the first message, with no repeats or gaps while new messages arrive", async () => {
    const staff = await member("support");
    const room = await newRoom(staff.cookie);
    const seeded = await seed(room, 260);
    const reader = await join({ room, name: "reader" });
    const writer = await join({ room, name: "writer" });
    const history = reader.frames.find((f) => f.type === "history")!;
    expect(history.type === "history" && history.messages.map((m) => m.id)).toEqual(seeded.slice(-HISTORY_LIMIT));
    expect(history.type === "history" && history.more).toBe(true);

    const older = await scrollBack(reader, seeded.at(-HISTORY_LIMIT)!, async (page) => {
      // Others keep talking while the reader scrolls up.
      writer.send({ type: "send", content: `meanwhile ${page}` });
      await writer.next("message", (f) => f.message.content === `meanwhile ${page}`);
    });
    expect(older.map((m) => m.id)).toEqual(seeded.slice(0, -HISTORY_LIMIT));
    expect(older[0]!.content).toBe("seed-0");
    reader.close();
    writer.close();
  });

  it("stops at the room's retention, and the room's alarm deletes what is older", async () => {
    const staff = await member("admin");
    const room = await newRoom(staff.cookie, { retentionDays: "7" });
    const expired = await seed(room, 3, 8 * DAY_MS, "expired");
    const kept = await seed(room, 3, 6 * DAY_MS, "kept");
    const alice = await join({ room, name: "alice" });
    alice.send({ type: "send", content: "today" });
    const { message } = await alice.next("message");
    // Before the alarm has run, the pages already end at the retention.
    expect((await scrollBack(alice, message.id)).map((m) => m.id)).toEqual(kept);

    expect(await runDurableObjectAlarm(roomStub(room))).toBe(true);
    const left = await runInDurableObject(roomStub(room), (_i, state) =>
      state.storage.sql.exec<{ id: number }>("select id from messages order by id").toArray(),
    );
    expect(left.map((row) => row.id)).toEqual([...kept, message.id]);
    expect(left.some((row) => expired.includes(row.id))).toBe(false);
    // The room keeps a daily alarm for the next sweep.
    expect(await runInDurableObject(roomStub(room), (_i, state) => state.storage.getAlarm())).not.toBeNull();
    alice.close();
  });

  it("answers a nonsense cursor with an empty page", async () => {
    const alice = await join({ name: "alice" });
    alice.send({ type: "older", before: -5 });
    expect(await alice.next("older", (f) => f.before === -5)).toEqual({ type: "older", before: -5, messages: [], more: false });
    alice.send({ type: "older", before: "x" });
    expect(await alice.next("error")).toMatchObject({ action: "older", message: "Unknown message" });
    alice.close();
  });
});

describe("mentions and unread counts", () => {
  it("highlight a message for the member mentioned, count per room and per member, and clear once read", async () => {
    const staff = await member("support");
    const room = await newRoom(staff.cookie);
    const alice = await join({ room, name: "alice" });
    const bob = await join({ room, name: "bob" });
    // Bob steps away; the room has seen him, so he can be mentioned.
    bob.close();

    alice.send({ type: "send", content: `hey @${bob.username.toUpperCase()}, look.` });
    const { message } = await alice.next("message");
    expect(message.mentions).toEqual([bob.id]);
    alice.send({ type: "send", content: "and one more" });
    const { message: last } = await alice.next("message", (f) => f.message.content === "and one more");

    const bobsRoom = (await sidebarRooms(bob.cookie)).find((r) => r.slug === room);
    expect(bobsRoom).toMatchObject({ unread: 2, mentions: 1 });
    // Alice wrote them: nothing unread for her once she has read up to her own message.
    alice.send({ type: "read", id: last.id });
    await alice.settled();
    expect((await sidebarRooms(alice.cookie)).find((r) => r.slug === room)).toMatchObject({ unread: 0, mentions: 0 });

    // Bob comes back and reads: his counts clear; Alice's are her own.
    const back = await open(bob.cookie, room, "bob again");
    const history = await back.next("history");
    expect(history.messages.find((m) => m.id === message.id)?.mentions).toEqual([bob.id]);
    back.send({ type: "read", id: message.id });
    await back.settled();
    expect((await sidebarRooms(bob.cookie)).find((r) => r.slug === room)).toMatchObject({ unread: 1, mentions: 0 });
    back.send({ type: "read", id: last.id });
    await back.settled();
    expect((await sidebarRooms(bob.cookie)).find((r) => r.slug === room)).toMatchObject({ unread: 0, mentions: 0 });
    // Reading never goes backwards.
    back.send({ type: "read", id: 1 });
    await back.settled();
    expect((await sidebarRooms(bob.cookie)).find((r) => r.slug === room)).toMatchObject({ unread: 0 });
    alice.close();
    back.close();
  });

  it("suggests members of the room whose name starts with what is typed after @", async () => {
    const staff = await member("support");
    const room = await newRoom(staff.cookie);
    const alice = await join({ room, name: "alice" });
    const bob = await join({ room, name: "bob" });
    const prefix = bob.username.slice(0, 8);
    alice.send({ type: "mentionable", prefix });
    const suggestions = await alice.next("mentionable", (f) => f.prefix === prefix);
    expect(suggestions.members).toContainEqual({ userId: bob.id, username: bob.username });
    alice.send({ type: "mentionable", prefix: unique("nobody") });
    expect((await alice.next("mentionable", (f) => f.prefix.startsWith("nobody"))).members).toEqual([]);
    alice.close();
    bob.close();
  });
});

describe("presence", () => {
  it("counts the members in the room now, once each however many tabs they have open", async () => {
    const staff = await member("support");
    const room = await newRoom(staff.cookie);
    const alice = await join({ room, name: "alice" });
    expect(alice.frames.find((f) => f.type === "history")).toMatchObject({ present: 1 });
    const aliceAgain = await open(alice.cookie, room, "alice's second tab");
    await aliceAgain.next("history");
    const bob = await join({ room, name: "bob" });
    expect(bob.frames.find((f) => f.type === "history")).toMatchObject({ present: 2 });
    // The count reaches everyone shortly after (the room's alarm batches changes).
    await runDurableObjectAlarm(roomStub(room));
    expect(await alice.next("presence", (f) => f.present === 2)).toEqual({ type: "presence", present: 2 });
    bob.close();
    await bob.closed;
    await runDurableObjectAlarm(roomStub(room));
    await alice.next("presence", (f) => f.present === 1);
    alice.close();
    aliceAgain.close();
  });
});
