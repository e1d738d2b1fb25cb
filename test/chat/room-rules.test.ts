// The rules each room enforces itself, whatever the page does: slow mode, the flood limit (which
// survives the room hibernating), blocked words, links, and who posts in announcements.
import { evictDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { RATE_LIMIT } from "~/lib/chat";
import { type Client, join, manageRooms, member, newRoom, open, roomSettings, roomStub } from "./chat-client";

afterEach(() => {
  vi.useRealTimers();
});

/** Sends `content` and answers what came back to the sender: its message, or the refusal. */
async function attempt(client: Client, content: string) {
  client.send({ type: "send", content });
  const answer = await client.first((f) => (f.type === "message" && f.message.content === content) || f.type === "error");
  return answer.type === "error" ? answer.message : ("sent" as const);
}

describe("slow mode", () => {
  it("lets each member send one message per N seconds, tells them how long to wait, and spares staff", async () => {
    const staff = await member("support");
    const room = await newRoom(staff.cookie, { slowModeSeconds: "30" });
    const alice = await join({ room, name: "alice" });
    const bob = await join({ room, name: "bob" });
    expect(alice.frames.find((f) => f.type === "history")).toMatchObject({ room: { slowModeSeconds: 30 } });

    expect(await attempt(alice, "first")).toBe("sent");
    expect(await attempt(alice, "second")).toBe("Slow mode is on: you can send again in 30 seconds.");
    // Each member has their own wait.
    expect(await attempt(bob, "bob's first")).toBe("sent");
    const moderator = await open(staff.cookie, room, "staff");
    await moderator.next("history");
    expect(await attempt(moderator, "staff one")).toBe("sent");
    expect(await attempt(moderator, "staff two")).toBe("sent");

    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 31_000);
    expect(await attempt(alice, "after the wait")).toBe("sent");
    vi.useRealTimers();

    // Turning it off reaches the open sockets at once.
    expect((await manageRooms(staff.cookie, { intent: "settings", room, ...roomSettings() })).status).toBe(200);
    expect((await alice.next("room", (f) => f.room.slowModeSeconds === 0)).room.slug).toBe(room);
    expect(await attempt(alice, "no more waiting")).toBe("sent");
    for (const c of [alice, bob, moderator]) c.close();
  });

  it("is changed by staff only", async () => {
    const staff = await member("admin");
    const room = await newRoom(staff.cookie);
    const plain = await member();
    expect((await manageRooms(plain.cookie, { intent: "settings", room, ...roomSettings({ slowModeSeconds: "10" }) })).status).toBe(403);
    for (const slowModeSeconds of ["-1", "3601", "soon"]) {
      expect((await manageRooms(staff.cookie, { intent: "settings", room, ...roomSettings({ slowModeSeconds }) })).status).toBe(400);
    }
  });
});

describe("the flood limit", () => {
  it("counts a member's messages across their sockets and still holds after the room hibernates", async () => {
    const staff = await member("support");
    const room = await newRoom(staff.cookie);
    const alice = await join({ room, name: "alice" });
    const second = await open(alice.cookie, room, "alice's second tab");
    await second.next("history");
    for (let i = 0; i < RATE_LIMIT.messages; i++) {
      const socket = i % 2 === 0 ? alice : second;
      socket.send({ type: "send", content: `burst ${i}` });
      await socket.next("message", (f) => f.message.content === `burst ${i}`);
    }
    await evictDurableObject(roomStub(room));
    second.send({ type: "send", content: "one too many" });
    expect((await second.next("error")).message).toBe("You are sending messages too fast. Wait a moment.");
    alice.close();
    second.close();
  });
});

describe("blocked words and links", () => {
  it("refuses a blocked word as a word of its own, in any case, and stores nothing", async () => {
    const staff = await member("support");
    const room = await newRoom(staff.cookie, { blockedWords: "spoiler\ncheap keys" });
    const alice = await join({ room, name: "alice" });
    const refusal = "Your message contains a word that is not allowed here.";
    expect(await attempt(alice, "no SPOILER please")).toBe(refusal);
    expect(await attempt(alice, "selling Cheap Keys!")).toBe(refusal);
    expect(await attempt(alice, "spoilers are fine")).toBe("sent");
    await alice.settled();
    expect(alice.frames.filter((f) => f.type === "message").map((f) => f.type === "message" && f.message.content)).toEqual([
      "spoilers are fine",
    ]);
    alice.close();
  });

  it("allows links to everyone, to staff only, or to no one, as the room says", async () => {
    const staff = await member("admin");
    const staffOnly = await newRoom(staff.cookie, { linkRule: "staff" });
    const noLinks = await newRoom(staff.cookie, { linkRule: "off" });
    const open_ = await newRoom(staff.cookie);

    const inStaffOnly = await join({ room: staffOnly, name: "alice" });
    expect(await attempt(inStaffOnly, "see https://example.com/offer")).toBe("Only staff can post links in this room.");
    expect(await attempt(inStaffOnly, "go to www.example.net")).toBe("Only staff can post links in this room.");
    expect(await attempt(inStaffOnly, "join discord.gg/abc")).toBe("Only staff can post links in this room.");
    expect(await attempt(inStaffOnly, "version 2.1 is out")).toBe("sent");
    const moderator = await open(staff.cookie, staffOnly, "staff");
    await moderator.next("history");
    expect(await attempt(moderator, "the guide: https://example.com/guide")).toBe("sent");

    const inNoLinks = await join({ room: noLinks, name: "bob" });
    expect(await attempt(inNoLinks, "https://example.com")).toBe("Links are not allowed in this room.");
    const staffInNoLinks = await open(staff.cookie, noLinks, "staff");
    await staffInNoLinks.next("history");
    expect(await attempt(staffInNoLinks, "https://example.com")).toBe("Links are not allowed in this room.");

    const inOpen = await join({ room: open_, name: "carol" });
    expect(await attempt(inOpen, "https://example.com is fine here")).toBe("sent");
    for (const c of [inStaffOnly, moderator, inNoLinks, staffInNoLinks, inOpen]) c.close();
  });
});

describe("announcements", () => {
  it("are read by every member and written by staff only", async () => {
    const alice = await join({ room: "announcements", name: "alice" });
    const history = alice.frames.find((f) => f.type === "history");
    expect(history).toMatchObject({ room: { slug: "announcements", kind: "announcements" }, you: { canPost: false } });
    expect(await attempt(alice, "can I post here?")).toBe("Only staff post in Announcements.");
    const staff = await join({ room: "announcements", role: "support", name: "staff" });
    expect(staff.frames.find((f) => f.type === "history")).toMatchObject({ you: { canPost: true, moderator: true } });
    const news = `Version 3 is out ${Date.now()}`;
    expect(await attempt(staff, news)).toBe("sent");
    expect((await alice.next("message", (f) => f.message.content === news)).message).toMatchObject({ staff: true });
    alice.close();
    staff.close();
  });
});
