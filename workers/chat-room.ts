// The members' chat room: one Durable Object per room (the hub has one). It uses the WebSocket
// hibernation API, so an idle room costs nothing; each socket's member and typing state live in its
// attachment and survive hibernation. Messages are stored in the object's own SQLite storage.
// Who a member is comes only from the Worker, which checked the session before the upgrade; what
// a member sends is checked against the protocol's schema before the room acts on it.
import { DurableObject } from "cloudflare:workers";
import { and, desc, eq } from "drizzle-orm";
import { drizzle, type DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { migrate } from "drizzle-orm/durable-sqlite/migrator";
import {
  type ChatMember,
  type ChatMessage,
  type ErrorFrame,
  HISTORY_LIMIT,
  MEMBER_ID_HEADER,
  MEMBER_NAME_HEADER,
  MEMBER_SESSION_HEADER,
  parseClientFrame,
  RATE_LIMIT,
  type ServerFrame,
  SESSION_ENDED_CLOSE,
  TYPING_TIMEOUT_MS,
  UNKNOWN_USER,
} from "~/lib/chat";
import { messages } from "~/server/platform/db/chat-schema.server";
import migrations from "../migrations/chat-room/migrations.js";

/** Storage key of the running count of frames refused for breaking the protocol. */
const REJECTED_FRAMES = "rejected-frames";

interface Attachment extends ChatMember {
  typingUntil: number;
  /** The socket's session has ended: nothing it sends is acted on any more. */
  ended?: boolean;
}

type Row = typeof messages.$inferSelect;

const sessionTag = (publicId: string) => `session:${publicId}`;

const toMessage = (row: Row): ChatMessage => ({
  id: row.id,
  userId: row.userId,
  username: row.username || UNKNOWN_USER,
  content: row.content,
  createdAt: row.createdAt,
});

export class ChatRoom extends DurableObject<Env> {
  private readonly db: DrizzleSqliteDODatabase;
  // Recent send times per member. In memory on purpose: a room that hibernates has been quiet
  // for longer than the window anyway.
  private readonly recentSends = new Map<string, number[]>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.db = drizzle(ctx.storage);
    void ctx.blockConcurrencyWhile(() => migrate(this.db, migrations));
  }

  async fetch(request: Request): Promise<Response> {
    if (request.headers.get("Upgrade")?.toLowerCase() !== "websocket") {
      return new Response("Expected a WebSocket upgrade", { status: 426 });
    }
    const userId = request.headers.get(MEMBER_ID_HEADER);
    const session = request.headers.get(MEMBER_SESSION_HEADER);
    if (!userId || !session) return new Response("Unknown member", { status: 400 });
    const member: ChatMember = { userId, username: request.headers.get(MEMBER_NAME_HEADER) || UNKNOWN_USER };

    const { 0: client, 1: server } = new WebSocketPair();
    // Tagged with its session, so the socket can be found and closed when the session ends.
    this.ctx.acceptWebSocket(server, [sessionTag(session)]);
    server.serializeAttachment({ ...member, typingUntil: 0 } satisfies Attachment);
    this.send(server, { type: "history", messages: this.history(), you: member });
    this.send(server, { type: "typing", members: this.typingMembers(Date.now()) });
    return new Response(null, { status: 101, webSocket: client });
  }

  async webSocketMessage(ws: WebSocket, raw: string | ArrayBuffer): Promise<void> {
    const me = ws.deserializeAttachment() as Attachment;
    if (me.ended) return;
    const checked = parseClientFrame(raw);
    if (!checked.ok) return this.reject(ws, checked.error);
    const { frame } = checked;
    const now = Date.now();
    switch (frame.type) {
      case "send":
        return this.post(ws, me, frame.content, now);
      case "delete":
        return this.remove(ws, me, frame.id);
      case "typing":
        return this.markTyping(ws, me, now);
    }
  }

  async webSocketClose(ws: WebSocket, code: number): Promise<void> {
    const me = ws.deserializeAttachment() as Attachment;
    try {
      ws.close(code === 1005 || code === 1006 ? 1000 : code, "closed");
    } catch {
      // Already closed by the runtime.
    }
    if (me.typingUntil > Date.now()) this.broadcastTyping(Date.now());
  }

  async webSocketError(ws: WebSocket): Promise<void> {
    ws.close(1011, "error");
  }

  /**
   * The Worker tells the room that these sessions have ended (sign-out, sign-out elsewhere, a new
   * password, expiry): their sockets close now, not at the next reconnect. RPC only.
   */
  endSessions(publicIds: string[]): void {
    for (const publicId of publicIds) {
      for (const socket of this.ctx.getWebSockets(sessionTag(publicId))) {
        try {
          socket.serializeAttachment({
            ...(socket.deserializeAttachment() as Attachment),
            typingUntil: 0,
            ended: true,
          } satisfies Attachment);
          this.send(socket, { type: "session-ended" });
          socket.close(SESSION_ENDED_CLOSE, "Session ended");
        } catch {
          // Already closing.
        }
      }
    }
  }

  /**
   * A member's own messages, oldest first: their copy for a data export, or (with `erase`, when
   * their account is deleted) the last look before they are deleted and every open page drops
   * them. RPC only: the Worker calls it for the member or for staff acting on their request.
   */
  memberMessages(userId: string, { erase = false }: { erase?: boolean } = {}): ChatMessage[] {
    const rows = this.db.select().from(messages).where(eq(messages.userId, userId)).orderBy(messages.id).all();
    if (erase && rows.length > 0) {
      this.db.delete(messages).where(eq(messages.userId, userId)).run();
      for (const row of rows) this.broadcast({ type: "deleted", id: row.id });
    }
    return rows.map(toMessage);
  }

  /** How many frames this room has refused as malformed, ever. RPC only: the Worker never routes to it. */
  rejectedFrames(): number {
    return this.ctx.storage.kv.get<number>(REJECTED_FRAMES) ?? 0;
  }

  /** Typing expires after two quiet seconds: the alarm tells everyone once it has. */
  async alarm(): Promise<void> {
    const now = Date.now();
    this.broadcastTyping(now);
    const next = this.nextTypingExpiry(now);
    if (next) await this.ctx.storage.setAlarm(next);
  }

  private history(): ChatMessage[] {
    const rows = this.db.select().from(messages).orderBy(desc(messages.id)).limit(HISTORY_LIMIT).all();
    return rows.reverse().map(toMessage);
  }

  /** `content` is already trimmed and within the length limit: the schema saw to both. */
  private async post(ws: WebSocket, me: Attachment, content: string, now: number): Promise<void> {
    const recent = (this.recentSends.get(me.userId) ?? []).filter((t) => now - t < RATE_LIMIT.windowMs);
    if (recent.length >= RATE_LIMIT.messages) return this.fail(ws, "send", "You are sending messages too fast. Wait a moment.");
    recent.push(now);
    this.recentSends.set(me.userId, recent);

    const row = this.db.insert(messages).values({ userId: me.userId, username: me.username, content, createdAt: now }).returning().get();
    this.broadcast({ type: "message", message: toMessage(row) });
    // Sending ends typing, on every socket of this member.
    if (this.clearTyping(me.userId)) this.broadcastTyping(now);
  }

  private async remove(ws: WebSocket, me: Attachment, id: number): Promise<void> {
    // Only the author's own messages: the condition is part of the delete itself.
    const deleted = this.db
      .delete(messages)
      .where(and(eq(messages.id, id), eq(messages.userId, me.userId)))
      .returning({ id: messages.id })
      .all();
    if (deleted.length === 0) return this.fail(ws, "delete", "You can only delete your own messages");
    this.broadcast({ type: "deleted", id });
  }

  private async markTyping(ws: WebSocket, me: Attachment, now: number): Promise<void> {
    const wasTyping = this.typingMembers(now).some((m) => m.userId === me.userId);
    ws.serializeAttachment({ ...me, typingUntil: now + TYPING_TIMEOUT_MS } satisfies Attachment);
    if (!wasTyping) this.broadcastTyping(now);
    const alarm = await this.ctx.storage.getAlarm();
    if (alarm === null || alarm > now + TYPING_TIMEOUT_MS) await this.ctx.storage.setAlarm(now + TYPING_TIMEOUT_MS);
  }

  private clearTyping(userId: string): boolean {
    let cleared = false;
    for (const socket of this.ctx.getWebSockets()) {
      const state = socket.deserializeAttachment() as Attachment;
      if (state.userId === userId && state.typingUntil > 0) {
        socket.serializeAttachment({ ...state, typingUntil: 0 } satisfies Attachment);
        cleared = true;
      }
    }
    return cleared;
  }

  private typingMembers(now: number): ChatMember[] {
    const typing = new Map<string, ChatMember>();
    for (const socket of this.ctx.getWebSockets()) {
      const state = socket.deserializeAttachment() as Attachment;
      if (state.typingUntil > now) typing.set(state.userId, { userId: state.userId, username: state.username });
    }
    return [...typing.values()];
  }

  private nextTypingExpiry(now: number): number | null {
    const times = this.ctx
      .getWebSockets()
      .map((s) => (s.deserializeAttachment() as Attachment).typingUntil)
      .filter((t) => t > now);
    return times.length > 0 ? Math.min(...times) : null;
  }

  private broadcastTyping(now: number): void {
    this.broadcast({ type: "typing", members: this.typingMembers(now) });
  }

  private broadcast(frame: ServerFrame): void {
    const text = JSON.stringify(frame);
    for (const socket of this.ctx.getWebSockets()) {
      try {
        socket.send(text);
      } catch {
        // A socket that is closing; its close handler tidies up.
      }
    }
  }

  private send(ws: WebSocket, frame: ServerFrame): void {
    ws.send(JSON.stringify(frame));
  }

  /** A well-formed request the room turns down (too fast, not yours). */
  private fail(ws: WebSocket, action: ErrorFrame["action"], message: string): void {
    this.send(ws, { type: "error", action, message });
  }

  /**
   * A frame that breaks the protocol: answered like any refusal, counted in storage (so the count
   * survives hibernation) and logged. No page of ours sends one, so a rising count means a foreign
   * client or a browser running stale code.
   */
  private reject(ws: WebSocket, error: ErrorFrame): void {
    const count = this.rejectedFrames() + 1;
    this.ctx.storage.kv.put(REJECTED_FRAMES, count);
    console.warn(`chat room: refused a malformed frame (${error.message}); ${count} refused so far`);
    this.send(ws, error);
  }
}
