import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { type ChatMessage, HISTORY_LIMIT, MAX_MESSAGE_LENGTH, RATE_LIMIT, type ServerFrame } from "~/lib/chat";
import { createAccount, ORIGIN, signIn, unique } from "./helpers";

const room = () => env.CHAT_ROOM.get(env.CHAT_ROOM.idFromName("hub"));

function upgrade(headers: Record<string, string>) {
  return exports.default.fetch(new Request(`${ORIGIN}/chat/ws`, { headers: { Upgrade: "websocket", ...headers } }));
}

interface Client {
  ws: WebSocket;
  frames: ServerFrame[];
  next<T extends ServerFrame["type"]>(type: T, match?: (frame: Extract<ServerFrame, { type: T }>) => boolean): Promise<Extract<ServerFrame, { type: T }>>;
  send(frame: unknown): void;
}

async function join(name = "member"): Promise<Client & { id: string; username: string }> {
  const account = await createAccount();
  const response = await upgrade({ Origin: ORIGIN, Cookie: await signIn(account, unique("ip")) });
  expect(response.status).toBe(101);
  const ws = response.webSocket!;
  ws.accept();
  const frames: ServerFrame[] = [];
  let seen = 0;
  const listeners = new Set<() => void>();
  ws.addEventListener("message", (event) => {
    frames.push(JSON.parse(String(event.data)) as ServerFrame);
    listeners.forEach((l) => l());
  });
  const client: Client = {
    ws,
    frames,
    next(type, match = () => true) {
      return new Promise((resolve, reject) => {
        const timeout = setTimeout(() => reject(new Error(`${name}: no "${type}" frame`)), 3000);
        const check = () => {
          for (; seen < frames.length; seen++) {
            const frame = frames[seen]!;
            if (frame.type === type && match(frame as never)) {
              seen++;
              clearTimeout(timeout);
              listeners.delete(check);
              resolve(frame as never);
              return;
            }
          }
        };
        listeners.add(check);
        check();
      });
    },
    send: (frame) => ws.send(JSON.stringify(frame)),
  };
  await client.next("history");
  return { ...client, id: account.id, username: account.username };
}

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
    const response = await upgrade({ Origin: ORIGIN, Cookie: await signIn(account, unique("ip")), "X-Chat-Member-Id": "someone-else", "X-Chat-Member-Name": "admin" });
    const ws = response.webSocket!;
    ws.accept();
    const history = await new Promise<ServerFrame>((resolve) => ws.addEventListener("message", (e) => resolve(JSON.parse(String(e.data))), { once: true }));
    expect(history).toMatchObject({ type: "history", you: { userId: account.id, username: account.username } });
    ws.send(JSON.stringify({ type: "send", content: "hello", userId: "someone-else", username: "admin" }));
    const posted = await new Promise<ServerFrame>((resolve) =>
      ws.addEventListener("message", (e) => {
        const frame = JSON.parse(String(e.data)) as ServerFrame;
        if (frame.type === "message") resolve(frame);
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
        state.storage.sql.exec("insert into messages (user_id, username, content, created_at) values (?, ?, ?, ?)", "seed", "seeder", `seed-${i}`, base + i);
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
    const count = await runInDurableObject(room(), (_i, state) => state.storage.sql.exec("select count(*) as n from messages where user_id = ?", member.id).one().n);
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
    const stillThere = await runInDurableObject(room(), (_i, state) => state.storage.sql.exec("select count(*) as n from messages where id = ?", message.id).one().n);
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
    const stored = await runInDurableObject(room(), (_i, state) => state.storage.sql.exec("select count(*) as n from messages where user_id = ?", alice.id).one().n);
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
});
