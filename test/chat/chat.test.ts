import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  type ChatMessage,
  type ErrorFrame,
  HISTORY_LIMIT,
  MAX_FRAME_LENGTH,
  MAX_MESSAGE_LENGTH,
  parseServerFrame,
  RATE_LIMIT,
  type ServerFrame,
} from "~/lib/chat";
import { createAccount, ORIGIN, signIn, unique } from "../helpers";
import { join as joinRoom, roomStub, upgrade } from "./chat-client";

const join = (name = "member") => joinRoom({ name });

const room = () => roomStub("general");

describe("chat room", () => {
  it("refuses an upgrade without a session, from another site, or without upgrading", async () => {
    expect((await upgrade({ Origin: ORIGIN })).status).toBe(401);
    const cookie = await signIn(await createAccount(), unique("ip"));
    expect((await upgrade({ Origin: "https://evil.example", Cookie: cookie })).status).toBe(403);
    expect((await upgrade({ Cookie: cookie })).status).toBe(403);
    const plain = await exports.default.fetch(new Request(`${ORIGIN}/chat/ws`, { headers: { Cookie: cookie } }));
    expect(plain.status).toBe(426);
  });

  it("takes the author from the session, never from the message or spoofed headers", async () => {
    const account = await createAccount();
    const response = await upgrade({
      Origin: ORIGIN,
      Cookie: await signIn(account, unique("ip")),
      "X-Chat-Member-Id": "someone-else",
      "X-Chat-Member-Name": "admin",
      "X-Chat-Member": JSON.stringify({ userId: "someone-else", username: "admin", moderator: true }),
    });
    const ws = response.webSocket!;
    ws.accept();
    const history = await new Promise<ServerFrame | null>((resolve) =>
      ws.addEventListener("message", (e) => resolve(parseServerFrame(e.data)), { once: true }),
    );
    expect(history).toMatchObject({ type: "history", you: { userId: account.id, username: account.username } });
    ws.send(JSON.stringify({ type: "send", content: "hello", userId: "someone-else", username: "admin" }));
    const posted = await new Promise<ServerFrame>((resolve) =>
      ws.addEventListener("message", (e) => {
        const frame = parseServerFrame(e.data);
        if (frame?.type === "message") resolve(frame);
      }),
    );
    expect(posted).toMatchObject({ type: "message", message: { userId: account.id, username: account.username, content: "hello" } });
    ws.close();
  });

  it("broadcasts a message to every member, trimmed, as plain text", async () => {
    const alice = await join("alice");
    const bob = await join("bob");
    const text = `  <img src=x onerror=alert(1)> hi ${unique("m")}  `;
    alice.send({ type: "send", content: text });
    const [forAlice, forBob] = await Promise.all([alice.next("message"), bob.next("message")]);
    expect(forBob.message).toEqual(forAlice.message);
    expect(forBob.message).toMatchObject({ userId: alice.id, username: alice.username, content: text.trim() });
    alice.ws.close();
    bob.ws.close();
  });

  it("sends the latest 100 messages, oldest first, on connect", async () => {
    await runInDurableObject(room(), async (_instance, state) => {
      const base = Date.now();
      for (let i = 0; i < 120; i++) {
        state.storage.sql.exec(
          "insert into messages (user_id, username, content, created_at) values (?, ?, ?, ?)",
          "seed",
          "seeder",
          `seed-${i}`,
          base + i,
        );
      }
    });
    const member = await join();
    const history = member.frames.find((f) => f.type === "history") as Extract<ServerFrame, { type: "history" }>;
    expect(history.messages).toHaveLength(HISTORY_LIMIT);
    const ids = history.messages.map((m: ChatMessage) => m.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(history.messages.at(-1)?.content).toBe("seed-119");
    expect(history.messages[0]?.content).toBe("seed-20");
    member.ws.close();
  });

  it("refuses empty and over-long messages, and stores neither", async () => {
    const member = await join();
    member.send({ type: "send", content: "    " });
    expect(await member.next("error")).toMatchObject({ action: "send", message: "Message cannot be empty" });
    member.send({ type: "send", content: "x".repeat(MAX_MESSAGE_LENGTH + 1) });
    expect((await member.next("error")).message).toMatch(/at most 1000 characters/);
    const count = await runInDurableObject(
      room(),
      (_i, state) => state.storage.sql.exec("select count(*) as n from messages where user_id = ?", member.id).one().n,
    );
    expect(count).toBe(0);
    member.ws.close();
  });

  it("limits how fast one member can post", async () => {
    const member = await join();
    for (let i = 0; i < RATE_LIMIT.messages; i++) {
      member.send({ type: "send", content: `burst ${i}` });
      await member.next("message");
    }
    member.send({ type: "send", content: "one too many" });
    expect((await member.next("error")).message).toMatch(/too fast/);
    member.ws.close();
  });

  it("lets members delete only their own messages", async () => {
    const alice = await join("alice");
    const bob = await join("bob");
    alice.send({ type: "send", content: "mine" });
    const { message } = await bob.next("message");
    bob.send({ type: "delete", id: message.id });
    expect(await bob.next("error")).toMatchObject({ action: "delete", message: "You can only delete your own messages" });
    const stillThere = await runInDurableObject(
      room(),
      (_i, state) => state.storage.sql.exec("select count(*) as n from messages where id = ?", message.id).one().n,
    );
    expect(stillThere).toBe(1);

    alice.send({ type: "delete", id: message.id });
    expect(await bob.next("deleted")).toEqual({ type: "deleted", id: message.id });
    expect(await alice.next("deleted")).toEqual({ type: "deleted", id: message.id });
    alice.ws.close();
    bob.ws.close();
  });

  it("shows who is typing, clears it after two quiet seconds, and clears it on send", async () => {
    const alice = await join("alice");
    const bob = await join("bob");
    alice.send({ type: "typing" });
    const typing = await bob.next("typing", (f) => f.members.some((m) => m.userId === alice.id));
    expect(typing.members).toEqual([{ userId: alice.id, username: alice.username }]);

    // Two seconds on: the alarm fires and tells everyone Alice stopped.
    await runInDurableObject(room(), (_i, state) => {
      for (const socket of state.getWebSockets()) {
        const attachment = socket.deserializeAttachment() as { typingUntil: number };
        if (attachment.typingUntil > 0) socket.serializeAttachment({ ...attachment, typingUntil: Date.now() - 1 });
      }
    });
    expect(await runDurableObjectAlarm(room())).toBe(true);
    await bob.next("typing", (f) => !f.members.some((m) => m.userId === alice.id));

    alice.send({ type: "typing" });
    await bob.next("typing", (f) => f.members.some((m) => m.userId === alice.id));
    alice.send({ type: "send", content: "done typing" });
    await bob.next("typing", (f) => !f.members.some((m) => m.userId === alice.id));
    // Typing is never stored with the messages.
    const stored = await runInDurableObject(
      room(),
      (_i, state) => state.storage.sql.exec("select count(*) as n from messages where user_id = ?", alice.id).one().n,
    );
    expect(stored).toBe(1);
    alice.ws.close();
    bob.ws.close();
  });

  it("answers nonsense frames with an error instead of crashing", async () => {
    const member = await join();
    member.ws.send("not json");
    expect((await member.next("error")).message).toBe("Unreadable message");
    member.send({ type: "delete", id: "1; drop table messages" });
    expect((await member.next("error")).action).toBe("delete");
    member.send({ type: "send", content: "still works" });
    expect((await member.next("message")).message.content).toBe("still works");
    member.ws.close();
  });

  it("answers each malformed frame with an error, keeps the socket, stores nothing and counts it", async () => {
    const member = await join();
    const json = (frame: unknown) => JSON.stringify(frame);
    const unknownRequest: Omit<ErrorFrame, "type"> = { action: "send", message: "Unknown request" };
    const emptyMessage: Omit<ErrorFrame, "type"> = { action: "send", message: "Message cannot be empty" };
    const unknownMessage: Omit<ErrorFrame, "type"> = { action: "delete", message: "Unknown message" };
    const tooLarge: Omit<ErrorFrame, "type"> = { action: "send", message: "That message is too large" };
    const cases: [label: string, frame: string | Uint8Array, answer: Omit<ErrorFrame, "type">][] = [
      ["not JSON", "{type: send", { action: "send", message: "Unreadable message" }],
      ["unknown type", json({ type: "shout", content: "hi" }), unknownRequest],
      ["no type", json({ content: "hi" }), unknownRequest],
      ["type of the wrong kind", json({ type: 1 }), unknownRequest],
      ["JSON that is not an object", json(["send", "hi"]), unknownRequest],
      ["JSON null", "null", unknownRequest],
      ["send without content", json({ type: "send" }), emptyMessage],
      ["send with numeric content", json({ type: "send", content: 42 }), emptyMessage],
      ["send with object content", json({ type: "send", content: { text: "hi" } }), emptyMessage],
      ["delete without id", json({ type: "delete" }), unknownMessage],
      ["delete with a string id", json({ type: "delete", id: "1" }), unknownMessage],
      ["delete with a fractional id", json({ type: "delete", id: 1.5 }), unknownMessage],
      [
        "content too long",
        json({ type: "send", content: "x".repeat(MAX_MESSAGE_LENGTH + 1) }),
        { action: "send", message: `Messages can be at most ${MAX_MESSAGE_LENGTH} characters` },
      ],
      ["frame too long", json({ type: "send", content: "x".repeat(MAX_FRAME_LENGTH) }), tooLarge],
      ["binary frame", new TextEncoder().encode(json({ type: "send", content: "binary" })), tooLarge],
    ];
    const rejectedBefore = await room().rejectedFrames();
    for (const [label, frame, answer] of cases) {
      member.ws.send(frame);
      expect(await member.next("error"), label).toEqual({ type: "error", ...answer });
    }
    expect(await room().rejectedFrames()).toBe(rejectedBefore + cases.length);
    const stored = await runInDurableObject(
      room(),
      (_i, state) => state.storage.sql.exec("select count(*) as n from messages where user_id = ?", member.id).one().n,
    );
    expect(stored).toBe(0);

    // The socket is still open and the member can chat; a good frame is not counted.
    member.send({ type: "send", content: "still here" });
    expect((await member.next("message")).message).toMatchObject({ userId: member.id, content: "still here" });
    expect(member.ws.readyState).toBe(WebSocket.OPEN);
    expect(await room().rejectedFrames()).toBe(rejectedBefore + cases.length);
    member.ws.close();
  });

  it("counts refusals of well-formed requests apart from malformed frames", async () => {
    const alice = await join("alice");
    const bob = await join("bob");
    alice.send({ type: "send", content: "not yours" });
    const { message } = await bob.next("message");
    const rejectedBefore = await room().rejectedFrames();
    bob.send({ type: "delete", id: message.id });
    expect(await bob.next("error")).toMatchObject({ action: "delete", message: "You can only delete your own messages" });
    expect(await room().rejectedFrames()).toBe(rejectedBefore);
    alice.ws.close();
    bob.ws.close();
  });
});

describe("server frames in the browser", () => {
  const message: ChatMessage = {
    id: 1,
    userId: "u1",
    username: "alice",
    content: "hi @bob",
    createdAt: 1_700_000_000_000,
    mentions: ["u2"],
    staff: false,
    removed: false,
  };
  const room = { slug: "general", name: "General", kind: "open", product: null, slowModeSeconds: 0, linkRule: "allowed" } as const;
  const you = { userId: "u1", username: "alice", moderator: false, canPost: true, mutedUntil: null };

  it("accepts every frame the room sends", () => {
    const frames: ServerFrame[] = [
      { type: "history", room, you, messages: [message], more: true, pins: [message], present: 3 },
      { type: "older", before: 2, messages: [message], more: false },
      { type: "message", message },
      { type: "deleted", id: 1 },
      { type: "removed", ids: [1, 2] },
      { type: "pins", pins: [] },
      { type: "typing", members: [{ userId: "u1", username: "alice" }] },
      { type: "presence", present: 2 },
      { type: "you", you: { ...you, mutedUntil: 1_700_000_600_000 } },
      { type: "room", room: { ...room, slowModeSeconds: 30 } },
      { type: "mentionable", prefix: "bo", members: [{ userId: "u2", username: "bob" }] },
      { type: "error", action: "delete", message: "Unknown message" },
      { type: "error", action: "send", message: "You are muted for 5 minutes more.", until: 1_700_000_300_000 },
      { type: "session-ended" },
      { type: "closed", reason: "banned", message: "You are banned from the chat." },
    ];
    for (const frame of frames) expect(parseServerFrame(JSON.stringify(frame))).toEqual(frame);
  });

  it("drops anything malformed", () => {
    const malformed: [label: string, data: unknown][] = [
      ["not JSON", "{type: message"],
      ["binary", new TextEncoder().encode(JSON.stringify({ type: "deleted", id: 1 })).buffer],
      ["unknown type", JSON.stringify({ type: "shout" })],
      ["missing fields", JSON.stringify({ type: "message" })],
      ["message missing its author", JSON.stringify({ type: "message", message: { ...message, userId: undefined } })],
      ["wrong types", JSON.stringify({ type: "deleted", id: "1" })],
      ["history of the wrong shape", JSON.stringify({ type: "history", messages: "none", you: { userId: "u1", username: "alice" } })],
      ["message without its flags", JSON.stringify({ type: "message", message: { ...message, removed: undefined } })],
      ["unknown close reason", JSON.stringify({ type: "closed", reason: "bored", message: "bye" })],
      ["unknown error action", JSON.stringify({ type: "error", action: "explode", message: "boom" })],
      ["JSON null", "null"],
    ];
    for (const [label, data] of malformed) expect(parseServerFrame(data), label).toBeNull();
  });
});
