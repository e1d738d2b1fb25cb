// What a chat room does (decisions 015, 094 and 095), loaded by the ChatRoom Durable Object when a
// room first wakes in an isolate (decision 116): its storage, its protocol and its rules. The
// object (workers/chat-room.ts) hands every event and call to the room opened here.
import { and, desc, eq, gte, inArray, isNull, lt, ne, sql } from "drizzle-orm";
import { drizzle, type DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { migrate } from "drizzle-orm/durable-sqlite/migrator";
import {
  blockedWordIn,
  type ChatMember,
  type ChatMessage,
  type ChatRoomInfo,
  type ChatYou,
  containsLink,
  type ErrorFrame,
  HISTORY_LIMIT,
  HISTORY_PAGE,
  MAX_PINS,
  MENTION_SUGGESTIONS,
  mentionedNames,
  mutedMessage,
  parseClientFrame,
  PING,
  PONG,
  PRESENCE_TIMEOUT_MS,
  RATE_LIMIT,
  REPORT_CONTEXT,
  RETENTION_DEFAULT_DAYS,
  ROOM_CLOSED_CLOSE,
  ROOM_SOCKET_LIMIT,
  type ServerFrame,
  SESSION_ENDED_CLOSE,
  slowModeMessage,
  TYPING_TIMEOUT_MS,
  UNKNOWN_USER,
  type ClosedFrame,
} from "~/lib/chat";
import { DAY_MS, MINUTE_MS } from "~/lib/time";
import {
  decodeHeader,
  MEMBER_HEADER,
  ROOM_HEADER,
  type RoomConfig,
  roomConfigSchema,
  socketMemberSchema,
} from "~/server/chat/room-handover.server";
import type { Standing } from "~/server/chat/sanctions.server";
import { members, mentions, messages, pins, reads } from "~/server/platform/db/chat-schema.server";
import { onFirstUse } from "~/server/platform/on-first-use.server";
import migrations from "../migrations/chat-room/migrations.js";

// Who holds a product's licence is the domain's question, loaded with the first access check: a
// room that never checks a licence never evaluates the domain (decision 107).
const accessRules = onFirstUse(() => Promise.all([import("~/server/chat/rooms.server"), import("~/server/platform/db/client.server")]));

/** Storage keys: the running count of frames refused for breaking the protocol, the room's rules, each member's recent sends. */
const REJECTED_FRAMES = "rejected-frames";
const CONFIG = "config";
const sendsKey = (userId: string) => `sends:${userId}`;
/** When the room next tells everyone how many are here (changes are batched), and when it next sweeps old messages. */
const PRESENCE_DUE = "presence-due";
const RETENTION_DUE = "retention-due";

/** How soon a change in who is here reaches everyone: a room of a thousand sockets tells them once, not once per arrival. */
const PRESENCE_BATCH_MS = 1000;
/** How often a product room checks its members' licences again (a refund, a ban, a pause end access without a set time). */
const ACCESS_RECHECK_MS = 5 * MINUTE_MS;
/** Sends remembered per member: enough for the flood window, and the last one for slow mode. */
const SENDS_KEPT = RATE_LIMIT.messages;

interface Attachment {
  userId: string;
  username: string;
  email: string;
  moderator: boolean;
  mutedUntil: number | null;
  typingUntil: number;
  connectedAt: number;
  /** In a product's room, for members: when to check their licence again. */
  accessCheckAt: number | null;
  /** The socket's session has ended, or the room closed it: nothing it sends is acted on any more. */
  ended?: boolean;
}

type Row = typeof messages.$inferSelect;

const sessionTag = (publicId: string) => `session:${publicId}`;
const memberTag = (userId: string) => `member:${userId}`;

const toMessage = (row: Row): ChatMessage => ({
  id: row.id,
  userId: row.userId,
  username: row.username || UNKNOWN_USER,
  content: row.removedAt === null ? row.content : "",
  createdAt: row.createdAt,
  mentions: row.removedAt === null ? row.mentions : [],
  staff: row.staff,
  removed: row.removedAt !== null,
});

const attachmentOf = (ws: WebSocket) => ws.deserializeAttachment() as Attachment;

/** A statement binds at most 100 values in a Durable Object's SQLite: lists go in chunks. */
function inChunks<T, R>(items: T[], run: (chunk: T[]) => R[]): R[] {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += 90) out.push(...run(items.slice(i, i + 90)));
  return out;
}

/** A message as staff removed it, for the Worker's audit log. */
export interface RemovedMessage {
  id: number;
  userId: string;
  username: string;
  content: string;
}

/** A room opened on its storage, its schema migrated: what the ChatRoom object hands every event to. */
export async function openChatRoom(ctx: DurableObjectState, env: Env): Promise<ChatRoomCore> {
  const room = new ChatRoomCore(ctx, env);
  await migrate(room.db, migrations);
  return room;
}

export class ChatRoomCore {
  readonly db: DrizzleSqliteDODatabase;
  /** The room's rules, read from storage once per wake-up. */
  private rules: RoomConfig | null | undefined;

  constructor(
    private readonly ctx: DurableObjectState,
    private readonly env: Env,
  ) {
    this.db = drizzle(ctx.storage);
    // The browser's keep-alive is answered by the runtime itself, without waking the room; when it
    // last was tells the room which sockets are still there.
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair(PING, PONG));
  }

  async fetch(request: Request): Promise<Response> {
    if (request.headers.get("Upgrade")?.toLowerCase() !== "websocket") {
      return new Response("Expected a WebSocket upgrade", { status: 426 });
    }
    const config = decodeHeader(request.headers.get(ROOM_HEADER), roomConfigSchema);
    const member = decodeHeader(request.headers.get(MEMBER_HEADER), socketMemberSchema);
    if (!config || !member) return new Response("Unknown member", { status: 400 });
    // Past its design limit the room takes no more sockets; the browser tries again with backoff.
    if (this.ctx.getWebSockets().length >= ROOM_SOCKET_LIMIT) return new Response("This room is full right now", { status: 503 });
    this.configure(config);
    const now = Date.now();

    const { 0: client, 1: server } = new WebSocketPair();
    // Tagged with its session and its member, so the room finds them when either changes.
    this.ctx.acceptWebSocket(server, [sessionTag(member.session), memberTag(member.userId)]);
    const attachment: Attachment = {
      userId: member.userId,
      username: member.username || UNKNOWN_USER,
      email: member.email,
      moderator: member.moderator,
      mutedUntil: member.mutedUntil,
      typingUntil: 0,
      connectedAt: now,
      accessCheckAt: config.kind === "product" && !member.moderator ? this.nextAccessCheck(member.accessUntil ?? null, now) : null,
    };
    // The room itself refuses a member banned from the chat: told why, and closed.
    if (member.banned) {
      this.closeWith(
        server,
        { ...attachment, ended: true },
        { type: "closed", reason: "banned", message: "You are banned from the chat." },
      );
      return new Response(null, { status: 101, webSocket: client });
    }
    server.serializeAttachment(attachment);
    this.db
      .insert(members)
      .values({ userId: member.userId, username: attachment.username, lastSeenAt: now })
      .onConflictDoUpdate({ target: members.userId, set: { username: attachment.username, lastSeenAt: now } })
      .run();
    this.presenceChanged();

    const latest = this.page(null, HISTORY_LIMIT, now);
    this.send(server, {
      type: "history",
      room: this.roomInfo(),
      you: this.you(attachment, now),
      messages: latest.messages,
      more: latest.more,
      pins: this.pinned(),
      present: this.presentCount(now),
    });
    this.send(server, { type: "typing", members: this.typingMembers(now) });
    await this.alarmBy(Math.min(this.ctx.storage.kv.get<number>(PRESENCE_DUE) ?? Infinity, attachment.accessCheckAt ?? Infinity), now);
    return new Response(null, { status: 101, webSocket: client });
  }

  async webSocketMessage(ws: WebSocket, raw: string | ArrayBuffer): Promise<void> {
    const me = attachmentOf(ws);
    if (me.ended) return;
    const checked = parseClientFrame(raw);
    if (!checked.ok) return this.reject(ws, checked.error);
    const { frame } = checked;
    const now = Date.now();
    switch (frame.type) {
      case "send":
        return this.post(ws, me, frame.content, now);
      case "delete":
        return this.removeOwn(ws, me, frame.id);
      case "typing":
        return this.markTyping(ws, me, now);
      case "older": {
        const older = this.page(frame.before, HISTORY_PAGE, now);
        return this.send(ws, { type: "older", before: frame.before, ...older });
      }
      case "read":
        return this.markRead(me, frame.id);
      case "mentionable":
        return this.send(ws, { type: "mentionable", prefix: frame.prefix, members: this.mentionable(frame.prefix, me.userId) });
    }
  }

  async webSocketClose(ws: WebSocket, code: number): Promise<void> {
    const me = attachmentOf(ws);
    try {
      ws.close(code === 1005 || code === 1006 ? 1000 : code, "closed");
    } catch {
      // Already closed by the runtime.
    }
    this.presenceChanged();
    if (me.typingUntil > Date.now()) this.broadcastTyping(Date.now());
    await this.alarmBy(this.ctx.storage.kv.get<number>(PRESENCE_DUE) ?? Infinity, Date.now());
  }

  async webSocketError(ws: WebSocket): Promise<void> {
    this.presenceChanged();
    ws.close(1011, "error");
  }

  // ---- What the Worker calls (RPC only: no socket reaches these) ----

  /** The room's rules, as staff set them (and as every socket's handshake brings them). */
  configure(config: RoomConfig): void {
    const before = this.config();
    if (JSON.stringify(before) === JSON.stringify(config)) return;
    this.ctx.storage.kv.put(CONFIG, config);
    this.rules = config;
    const shown = (c: RoomConfig | null) => (c ? JSON.stringify(this.roomInfo(c)) : null);
    if (before && shown(before) !== shown(config)) this.broadcast({ type: "room", room: this.roomInfo() });
  }

  /** A member's chat standing changed: their sockets here follow at once (a ban closes them). */
  applyStanding(userId: string, standing: Standing): void {
    const now = Date.now();
    for (const socket of this.ctx.getWebSockets(memberTag(userId))) {
      const me = attachmentOf(socket);
      if (me.ended) continue;
      if (standing.banned) {
        this.closeWith(socket, { ...me, ended: true }, { type: "closed", reason: "banned", message: "You are banned from the chat." });
        this.presenceChanged();
        continue;
      }
      const updated = { ...me, mutedUntil: standing.mutedUntil };
      socket.serializeAttachment(updated);
      this.send(socket, { type: "you", you: this.you(updated, now) });
    }
  }

  /**
   * Staff remove messages: these ids, or everything a member wrote since a time. Only messages
   * not removed already (the update is the claim); the rows stay, emptied, so everyone sees where
   * they were. Answers what was removed (for the audit log) and which ids were never here.
   */
  removeMessages(
    by: string,
    target: { ids: number[] } | { userId: string; since: number },
  ): { removed: RemovedMessage[]; missing: number[] } {
    const found =
      "ids" in target
        ? inChunks(target.ids, (ids) => this.db.select().from(messages).where(inArray(messages.id, ids)).all())
        : this.db
            .select()
            .from(messages)
            .where(and(eq(messages.userId, target.userId), gte(messages.createdAt, target.since)))
            .all();
    const removable = found.filter((row) => row.removedAt === null);
    const missing = "ids" in target ? target.ids.filter((id) => !found.some((row) => row.id === id)) : [];
    if (removable.length === 0) return { removed: [], missing };
    const ids = removable.map((row) => row.id);
    const now = Date.now();
    // The room runs one thing at a time: nothing removes these between the read above and this write.
    const unpinned = inChunks(ids, (chunk) => {
      this.db.update(messages).set({ content: "", mentions: [], removedAt: now, removedBy: by }).where(inArray(messages.id, chunk)).run();
      this.db.delete(mentions).where(inArray(mentions.messageId, chunk)).run();
      return this.db.delete(pins).where(inArray(pins.messageId, chunk)).returning().all();
    });
    this.broadcast({ type: "removed", ids });
    if (unpinned.length > 0) this.broadcast({ type: "pins", pins: this.pinned() });
    return {
      removed: removable.map((row) => ({ id: row.id, userId: row.userId, username: row.username || UNKNOWN_USER, content: row.content })),
      missing,
    };
  }

  pin(messageId: number, by: string): "not-found" | "already" | "full" | { content: string; username: string } {
    const row = this.db.select().from(messages).where(eq(messages.id, messageId)).get();
    if (!row || row.removedAt !== null) return "not-found";
    if (this.db.select().from(pins).where(eq(pins.messageId, messageId)).get()) return "already";
    if (
      this.db
        .select({ n: sql<number>`count(*)` })
        .from(pins)
        .get()!.n >= MAX_PINS
    )
      return "full";
    this.db.insert(pins).values({ messageId, pinnedAt: Date.now(), pinnedBy: by }).run();
    this.broadcast({ type: "pins", pins: this.pinned() });
    return { content: row.content, username: row.username || UNKNOWN_USER };
  }

  unpin(messageId: number): boolean {
    const gone = this.db.delete(pins).where(eq(pins.messageId, messageId)).returning().all();
    if (gone.length > 0) this.broadcast({ type: "pins", pins: this.pinned() });
    return gone.length > 0;
  }

  /** The room is archived: every socket is told and closed. */
  archive(): void {
    for (const socket of this.ctx.getWebSockets()) {
      const me = attachmentOf(socket);
      if (me.ended) continue;
      this.closeWith(socket, { ...me, ended: true }, { type: "closed", reason: "archived", message: "This room has been archived." });
    }
  }

  /** A message and the few around it, as a member reports it; null when it is not here. */
  reportSnapshot(
    messageId: number,
  ): { message: ChatMessage; context: { id: number; username: string; content: string; createdAt: number }[] } | null {
    const row = this.db.select().from(messages).where(eq(messages.id, messageId)).get();
    if (!row) return null;
    const around = [
      ...this.db.select().from(messages).where(lt(messages.id, messageId)).orderBy(desc(messages.id)).limit(REPORT_CONTEXT).all().reverse(),
      ...this.db
        .select()
        .from(messages)
        .where(sql`${messages.id} > ${messageId}`)
        .orderBy(messages.id)
        .limit(REPORT_CONTEXT)
        .all(),
    ];
    return {
      message: toMessage(row),
      context: around.map(toMessage).map(({ id, username, content, createdAt }) => ({ id, username, content, createdAt })),
    };
  }

  /** What `userId` has not read here (others' messages after their read position), and how much of it mentions them; both capped at 100. */
  unreadFor(userId: string): { unread: number; mentions: number } {
    const now = Date.now();
    const last = this.db.select({ id: reads.lastReadId }).from(reads).where(eq(reads.userId, userId)).get()?.id ?? 0;
    const unread = this.ctx.storage.sql
      .exec<{ n: number }>(
        "select count(*) as n from (select 1 from messages where id > ? and user_id <> ? and removed_at is null and created_at >= ? limit 100)",
        last,
        userId,
        this.retentionCutoff(now),
      )
      .one().n;
    const mentioned = this.ctx.storage.sql
      .exec<{ n: number }>(
        "select count(*) as n from (select 1 from mentions where user_id = ? and message_id > ? limit 100)",
        userId,
        last,
      )
      .one().n;
    return { unread, mentions: mentioned };
  }

  /**
   * The Worker tells the room that these sessions have ended (sign-out, sign-out elsewhere, a new
   * password, expiry): their sockets close now, not at the next reconnect.
   */
  endSessions(publicIds: string[]): void {
    for (const publicId of publicIds) {
      for (const socket of this.ctx.getWebSockets(sessionTag(publicId))) {
        try {
          const me = attachmentOf(socket);
          if (me.ended) continue;
          socket.serializeAttachment({ ...me, typingUntil: 0, ended: true } satisfies Attachment);
          this.presenceChanged();
          this.send(socket, { type: "session-ended" });
          socket.close(SESSION_ENDED_CLOSE, "Session ended");
        } catch {
          // Already closing.
        }
      }
    }
  }

  /**
   * A member's own messages here, oldest first: their copy for a data export, or (with `erase`,
   * when their account is deleted) the last look before they are deleted, with their mentions and
   * pins, and every open page drops them. RPC only: the Worker calls it for the member or for staff
   * acting on their request.
   */
  memberMessages(userId: string, { erase = false }: { erase?: boolean } = {}): ChatMessage[] {
    const rows = this.db.select().from(messages).where(eq(messages.userId, userId)).orderBy(messages.id).all();
    if (erase && rows.length > 0) {
      const ids = rows.map((row) => row.id);
      const unpinned = inChunks(ids, (chunk) => {
        this.db.delete(mentions).where(inArray(mentions.messageId, chunk)).run();
        this.db.delete(messages).where(inArray(messages.id, chunk)).run();
        return this.db.delete(pins).where(inArray(pins.messageId, chunk)).returning().all();
      });
      for (const id of ids) this.broadcast({ type: "deleted", id });
      if (unpinned.length > 0) this.broadcast({ type: "pins", pins: this.pinned() });
    }
    return rows.map(toMessage);
  }

  /** How many frames this room has refused as malformed, ever. RPC only: the Worker never routes to it. */
  rejectedFrames(): number {
    return this.ctx.storage.kv.get<number>(REJECTED_FRAMES) ?? 0;
  }

  /**
   * The room's one alarm does what is due: typing that went quiet, the batched count of who is
   * here, the licences of a product room's members, and old messages past the retention.
   */
  async alarm(): Promise<void> {
    const now = Date.now();
    this.expireTyping(now);
    const presenceDue = this.ctx.storage.kv.get<number>(PRESENCE_DUE);
    if (presenceDue !== undefined && presenceDue <= now) {
      this.ctx.storage.kv.delete(PRESENCE_DUE);
      this.broadcast({ type: "presence", present: this.presentCount() });
    }
    await this.checkAccess(now);
    this.sweepRetention(now);
    await this.armAlarm(now);
  }

  // ---- Posting and what members ask for ----

  /** `content` is already trimmed and within the length limit: the schema saw to both. */
  private async post(ws: WebSocket, me: Attachment, content: string, now: number): Promise<void> {
    const room = this.config();
    if (room?.kind === "announcements" && !me.moderator) return this.fail(ws, "send", `Only staff post in ${room.name}.`);
    if (me.mutedUntil !== null && me.mutedUntil > now) return this.fail(ws, "send", mutedMessage(me.mutedUntil, now), me.mutedUntil);
    const sends = this.ctx.storage.kv.get<number[]>(sendsKey(me.userId)) ?? [];
    const slowMs = (room?.slowModeSeconds ?? 0) * 1000;
    const last = sends.at(-1);
    if (slowMs > 0 && !me.moderator && last !== undefined && last + slowMs > now) {
      return this.fail(ws, "send", slowModeMessage(last + slowMs, now), last + slowMs);
    }
    if (sends.filter((t) => now - t < RATE_LIMIT.windowMs).length >= RATE_LIMIT.messages) {
      return this.fail(ws, "send", "You are sending messages too fast. Wait a moment.");
    }
    if (room && blockedWordIn(content, room.blockedWords) !== null)
      return this.fail(ws, "send", "Your message contains a word that is not allowed here.");
    if (room && room.linkRule !== "allowed" && containsLink(content)) {
      if (room.linkRule === "off") return this.fail(ws, "send", "Links are not allowed in this room.");
      if (!me.moderator) return this.fail(ws, "send", "Only staff can post links in this room.");
    }
    // Counted in storage, so the limit holds across the member's sockets and after hibernation.
    this.ctx.storage.kv.put(sendsKey(me.userId), [...sends, now].slice(-SENDS_KEPT));

    const named = mentionedNames(content);
    const mentioned =
      named.length === 0
        ? []
        : this.db
            .select({ userId: members.userId })
            .from(members)
            .where(and(inArray(sql`lower(${members.username})`, named), ne(members.userId, me.userId)))
            .all()
            .map((row) => row.userId);
    const row = this.db
      .insert(messages)
      .values({ userId: me.userId, username: me.username, content, createdAt: now, mentions: mentioned, staff: me.moderator })
      .returning()
      .get();
    if (mentioned.length > 0)
      this.db
        .insert(mentions)
        .values(mentioned.map((userId) => ({ userId, messageId: row.id })))
        .run();
    this.broadcast({ type: "message", message: toMessage(row) });
    // Sending ends typing, on every socket of this member.
    if (this.clearTyping(me.userId)) this.broadcastTyping(now);
    if (this.ctx.storage.kv.get(RETENTION_DUE) === undefined) {
      this.ctx.storage.kv.put(RETENTION_DUE, now + DAY_MS);
      await this.alarmBy(now + DAY_MS, now);
    }
  }

  /** A member deletes their own message: it is gone for everyone. One removed by staff stays removed. */
  private removeOwn(ws: WebSocket, me: Attachment, id: number): void {
    // Only the author's own messages: the condition is part of the delete itself.
    const deleted = this.db
      .delete(messages)
      .where(and(eq(messages.id, id), eq(messages.userId, me.userId), isNull(messages.removedAt)))
      .returning({ id: messages.id })
      .all();
    if (deleted.length === 0) return this.fail(ws, "delete", "You can only delete your own messages");
    this.db.delete(mentions).where(eq(mentions.messageId, id)).run();
    const unpinned = this.db.delete(pins).where(eq(pins.messageId, id)).returning().all();
    this.broadcast({ type: "deleted", id });
    if (unpinned.length > 0) this.broadcast({ type: "pins", pins: this.pinned() });
  }

  /**
   * Messages before `before` (the newest when null), newest first from storage, answered oldest
   * first; only those within the room's retention. The cursor is a message id, so messages
   * arriving meanwhile never shift a page.
   */
  private page(before: number | null, size: number, now: number): { messages: ChatMessage[]; more: boolean } {
    if (before !== null && before <= 1) return { messages: [], more: false };
    const rows = this.db
      .select()
      .from(messages)
      .where(and(before === null ? undefined : lt(messages.id, before), gte(messages.createdAt, this.retentionCutoff(now))))
      .orderBy(desc(messages.id))
      .limit(size + 1)
      .all();
    return { messages: rows.slice(0, size).reverse().map(toMessage), more: rows.length > size };
  }

  /** Read up to `id`: never backwards, never past the newest message. */
  private markRead(me: Attachment, id: number): void {
    const newest =
      this.db
        .select({ id: sql<number | null>`max(${messages.id})` })
        .from(messages)
        .get()?.id ?? 0;
    const upTo = Math.min(id, newest);
    if (upTo <= 0) return;
    this.db
      .insert(reads)
      .values({ userId: me.userId, lastReadId: upTo })
      .onConflictDoUpdate({ target: reads.userId, set: { lastReadId: sql`max(${reads.lastReadId}, excluded.last_read_id)` } })
      .run();
  }

  private mentionable(prefix: string, self: string): ChatMember[] {
    const start = prefix.trim().toLowerCase();
    return this.db
      .select({ userId: members.userId, username: members.username })
      .from(members)
      .where(and(sql`substr(lower(${members.username}), 1, ${start.length}) = ${start}`, ne(members.userId, self)))
      .orderBy(desc(members.lastSeenAt))
      .limit(MENTION_SUGGESTIONS)
      .all();
  }

  private pinned(): ChatMessage[] {
    return this.db
      .select({ message: messages })
      .from(pins)
      .innerJoin(messages, eq(messages.id, pins.messageId))
      .orderBy(desc(pins.pinnedAt))
      .all()
      .map((row) => toMessage(row.message));
  }

  // ---- Typing ----

  private markTyping(ws: WebSocket, me: Attachment, now: number): Promise<void> {
    const wasTyping = this.typingMembers(now).some((m) => m.userId === me.userId);
    ws.serializeAttachment({ ...me, typingUntil: now + TYPING_TIMEOUT_MS } satisfies Attachment);
    if (!wasTyping) this.broadcastTyping(now);
    return this.alarmBy(now + TYPING_TIMEOUT_MS, now);
  }

  private clearTyping(userId: string): boolean {
    let cleared = false;
    for (const socket of this.ctx.getWebSockets(memberTag(userId))) {
      const state = attachmentOf(socket);
      if (state.typingUntil > 0) {
        socket.serializeAttachment({ ...state, typingUntil: 0 } satisfies Attachment);
        cleared = true;
      }
    }
    return cleared;
  }

  /** Typing that went quiet is cleared, and everyone told once. */
  private expireTyping(now: number): void {
    let expired = false;
    for (const socket of this.ctx.getWebSockets()) {
      const state = attachmentOf(socket);
      if (state.typingUntil > 0 && state.typingUntil <= now) {
        socket.serializeAttachment({ ...state, typingUntil: 0 } satisfies Attachment);
        expired = true;
      }
    }
    if (expired) this.broadcastTyping(now);
  }

  private typingMembers(now: number): ChatMember[] {
    const typing = new Map<string, ChatMember>();
    for (const socket of this.ctx.getWebSockets()) {
      const state = attachmentOf(socket);
      if (state.typingUntil > now && !state.ended) typing.set(state.userId, { userId: state.userId, username: state.username });
    }
    return [...typing.values()];
  }

  private broadcastTyping(now: number): void {
    this.broadcast({ type: "typing", members: this.typingMembers(now) });
  }

  // ---- Presence ----

  /**
   * Members here now: each once, however many sockets they have, counting only sockets that
   * showed life lately (opened, or answered a ping without waking the room). A socket whose far
   * end vanished without closing is not counted while the runtime still holds it.
   */
  private presentCount(now = Date.now()): number {
    const here = new Set<string>();
    for (const socket of this.ctx.getWebSockets()) {
      const state = attachmentOf(socket);
      if (state.ended) continue;
      const pinged = this.ctx.getWebSocketAutoResponseTimestamp(socket)?.getTime() ?? 0;
      if (Math.max(state.connectedAt, pinged) > now - PRESENCE_TIMEOUT_MS) here.add(state.userId);
    }
    return here.size;
  }

  /** Someone came or went: everyone hears the new count shortly, once however many came or went meanwhile. */
  private presenceChanged(): void {
    if (this.ctx.storage.kv.get(PRESENCE_DUE) === undefined) this.ctx.storage.kv.put(PRESENCE_DUE, Date.now() + PRESENCE_BATCH_MS);
  }

  // ---- Product rooms: the licence behind each member's socket ----

  private nextAccessCheck(accessUntil: number | null, now: number): number {
    return Math.min(accessUntil ?? Number.POSITIVE_INFINITY, now + ACCESS_RECHECK_MS);
  }

  /** Members whose licence check is due are checked against D1 by the one rule; those no longer holding one are closed out. */
  private async checkAccess(now: number): Promise<void> {
    const room = this.config();
    if (room?.kind !== "product" || !room.product) return;
    const due = this.ctx.getWebSockets().filter((socket) => {
      const state = attachmentOf(socket);
      return !state.ended && state.accessCheckAt !== null && state.accessCheckAt <= now;
    });
    if (due.length === 0) return;
    const [{ productHolders }, { database }] = await accessRules();
    const holders = await productHolders(
      database(this.env.DB),
      room.product,
      due.map((socket) => attachmentOf(socket).email),
      now,
    );
    for (const socket of due) {
      const state = attachmentOf(socket);
      const holding = holders.get(state.email.toLowerCase());
      if (holding === undefined) {
        this.closeWith(
          socket,
          { ...state, ended: true },
          { type: "closed", reason: "access-ended", message: `This room is for members holding a live ${room.product} licence.` },
        );
        this.presenceChanged();
      } else {
        socket.serializeAttachment({ ...state, accessCheckAt: this.nextAccessCheck(holding, now) } satisfies Attachment);
      }
    }
  }

  // ---- Retention ----

  private retentionCutoff(now: number): number {
    return now - (this.config()?.retentionDays ?? RETENTION_DEFAULT_DAYS) * DAY_MS;
  }

  /** Messages older than the retention are deleted, with their mentions and pins; a daily alarm comes back while messages remain. */
  private sweepRetention(now: number): void {
    const cutoff = this.retentionCutoff(now);
    const old = this.db.delete(messages).where(lt(messages.createdAt, cutoff)).returning({ id: messages.id }).all();
    if (old.length > 0) {
      this.db
        .delete(mentions)
        .where(sql`${mentions.messageId} not in (select ${messages.id} from ${messages})`)
        .run();
      this.db
        .delete(pins)
        .where(sql`${pins.messageId} not in (select ${messages.id} from ${messages})`)
        .run();
    }
    const due = this.ctx.storage.kv.get<number>(RETENTION_DUE);
    if (due !== undefined && due <= now) {
      // Once a day: members' send times that no limit looks at any more are forgotten.
      const forgetBefore = now - Math.max(RATE_LIMIT.windowMs, (this.config()?.slowModeSeconds ?? 0) * 1000);
      for (const [key, sends] of this.ctx.storage.kv.list<number[]>({ prefix: "sends:" })) {
        if ((sends.at(-1) ?? 0) < forgetBefore) this.ctx.storage.kv.delete(key);
      }
      const any = this.db.select({ id: messages.id }).from(messages).limit(1).get();
      if (any) this.ctx.storage.kv.put(RETENTION_DUE, now + DAY_MS);
      else this.ctx.storage.kv.delete(RETENTION_DUE);
    }
  }

  // ---- The alarm ----

  /**
   * Something new is due at `due`: the room's alarm comes no later. (Adding one thing needs no
   * look at everything else: the alarm itself works out the next time when it has run.)
   */
  private async alarmBy(due: number, now: number): Promise<void> {
    if (!Number.isFinite(due)) return;
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > due) await this.ctx.storage.setAlarm(Math.max(due, now));
  }

  /** The next time anything is due (typing, presence, a licence check, the retention sweep), set as the room's one alarm. */
  private async armAlarm(now: number): Promise<void> {
    const times: number[] = [];
    for (const socket of this.ctx.getWebSockets()) {
      const state = attachmentOf(socket);
      if (state.typingUntil > now) times.push(state.typingUntil);
      if (!state.ended && state.accessCheckAt !== null) times.push(Math.max(state.accessCheckAt, now));
    }
    for (const key of [PRESENCE_DUE, RETENTION_DUE]) {
      const at = this.ctx.storage.kv.get<number>(key);
      if (at !== undefined) times.push(Math.max(at, now));
    }
    if (times.length === 0) return;
    const next = Math.min(...times);
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > next || current < now) await this.ctx.storage.setAlarm(next);
  }

  // ---- Rules, frames ----

  private config(): RoomConfig | null {
    if (this.rules === undefined) this.rules = this.ctx.storage.kv.get<RoomConfig>(CONFIG) ?? null;
    return this.rules;
  }

  private roomInfo(config = this.config()): ChatRoomInfo {
    return {
      slug: config?.slug ?? "general",
      name: config?.name ?? "General",
      kind: config?.kind ?? "open",
      product: config?.product ?? null,
      slowModeSeconds: config?.slowModeSeconds ?? 0,
      linkRule: config?.linkRule ?? "allowed",
    };
  }

  private you(me: Attachment, now: number): ChatYou {
    return {
      userId: me.userId,
      username: me.username,
      moderator: me.moderator,
      canPost: this.config()?.kind !== "announcements" || me.moderator,
      mutedUntil: me.mutedUntil !== null && me.mutedUntil > now ? me.mutedUntil : null,
    };
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

  /** Tells the socket why the room will not keep it, then closes it; it is ignored from then on. */
  private closeWith(ws: WebSocket, attachment: Attachment, frame: ClosedFrame): void {
    try {
      ws.serializeAttachment({ ...attachment, typingUntil: 0 } satisfies Attachment);
      this.send(ws, frame);
      ws.close(ROOM_CLOSED_CLOSE, frame.reason);
    } catch {
      // Already closing.
    }
  }

  /** A well-formed request the room turns down (muted, too fast, not yours), with until when it holds. */
  private fail(ws: WebSocket, action: ErrorFrame["action"], message: string, until?: number): void {
    this.send(ws, { type: "error", action, message, ...(until !== undefined ? { until } : {}) });
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
