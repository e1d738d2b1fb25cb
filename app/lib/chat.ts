// The chat protocol, shared by the browser and the ChatRoom Durable Object, and the room rules both
// sides need to word the same way (decisions 015, 094 and 095). Frames are JSON text; each side
// checks what it receives against the schemas here rather than trusting the other end.
import * as v from "valibot";
import { counted } from "./format";
import { LINK_RULES, type LinkRule, ROOM_KINDS, type RoomKind } from "./chat-rooms";
import { DAY_MS, HOUR_MS, MINUTE_MS } from "./time";

export { LINK_RULES, type LinkRule, RETENTION_DEFAULT_DAYS, ROOM_KINDS, type RoomKind } from "./chat-rooms";

/** Messages a member gets on joining a room: the newest ones, then older pages as they scroll up. */
export const HISTORY_LIMIT = 100;
/** Messages in one older page. */
export const HISTORY_PAGE = 50;
export const MAX_MESSAGE_LENGTH = 1000;
/** A frame longer than this is refused before it is parsed. */
export const MAX_FRAME_LENGTH = 8 * 1024;
export const TYPING_TIMEOUT_MS = 2000;
/** The flood limit: a member may send this many messages within the window, across all their sockets. */
export const RATE_LIMIT = { messages: 5, windowMs: 10_000 };
export const UNKNOWN_USER = "Unknown User";
/**
 * The browser's keep-alive: "ping" every PING_EVERY_MS, answered "pong" by the runtime without
 * waking the room. A socket silent for longer than PRESENCE_TIMEOUT_MS no longer counts as here.
 */
export const PING = "ping";
export const PONG = "pong";
export const PING_EVERY_MS = 30_000;
export const PRESENCE_TIMEOUT_MS = 75_000;
/** The room's design limit of sockets (decision 095): past it the room refuses more, and the browser tries again later. */
export const ROOM_SOCKET_LIMIT = 2000;
/** Pinned messages a room shows at its top, at most. */
export const MAX_PINS = 5;
/** Members a message may mention; more "@names" are left as plain text. */
export const MAX_MENTIONS = 5;
/** Suggestions offered while a member types "@…". */
export const MENTION_SUGGESTIONS = 6;
/** Messages before and after a reported one that staff see with it. */
export const REPORT_CONTEXT = 3;
/** "Delete last hour": how far back a member's messages are removed at once. */
export const PURGE_WINDOW_MS = HOUR_MS;
export const MAX_REASON_LENGTH = 300;
export const RETENTION_MAX_DAYS = 3650;
export const SLOW_MODE_MAX_SECONDS = 3600;
export const MAX_BLOCKED_WORDS = 200;

/** The choices staff have for a mute, in minutes. */
export const MUTE_CHOICES = [
  { minutes: 10, label: "10 minutes" },
  { minutes: 60, label: "1 hour" },
  { minutes: 24 * 60, label: "1 day" },
  { minutes: 7 * 24 * 60, label: "1 week" },
] as const;
export const MAX_MUTE_MINUTES = 30 * 24 * 60;

/**
 * The close code of a socket whose session has ended: the browser signs in again rather than
 * reconnecting. A "session-ended" frame goes first, because a close frame is not passed on by
 * every proxy in between (the local development server drops it).
 */
export const SESSION_ENDED_CLOSE = 4001;
/** The close code of a socket the room will not keep (banned, the licence ended, the room archived); a "closed" frame says why first. */
export const ROOM_CLOSED_CLOSE = 4003;

const memberSchema = v.object({ userId: v.string(), username: v.string() });
const messageId = v.pipe(v.number(), v.integer());
const messageSchema = v.object({
  id: messageId,
  userId: v.string(),
  username: v.string(),
  content: v.string(),
  createdAt: v.number(),
  // The members the message mentions, by id: the message is highlighted for them.
  mentions: v.array(v.string()),
  // Written by staff (shown with a badge).
  staff: v.boolean(),
  // Removed by staff: shown as "removed by staff" where it was, its content gone.
  removed: v.boolean(),
});
/** A room as members see it: the Worker hands the room this and its private rules (blocked words, retention). */
export const roomSchema = v.object({
  slug: v.string(),
  name: v.string(),
  kind: v.picklist(ROOM_KINDS),
  product: v.nullable(v.string()),
  slowModeSeconds: v.number(),
  linkRule: v.picklist(LINK_RULES),
});
const youSchema = v.object({
  userId: v.string(),
  username: v.string(),
  moderator: v.boolean(),
  canPost: v.boolean(),
  mutedUntil: v.nullable(v.number()),
});

export type ChatMember = v.InferOutput<typeof memberSchema>;
export type ChatMessage = v.InferOutput<typeof messageSchema>;
export type ChatRoomInfo = v.InferOutput<typeof roomSchema>;
export type ChatYou = v.InferOutput<typeof youSchema>;

// The messages are what the member sees in the toast, so they are today's texts, word for word.
const TOO_LARGE = "That message is too large";
const EMPTY = "Message cannot be empty";
const UNKNOWN_MESSAGE = "Unknown message";

const clientFrameSchema = v.variant(
  "type",
  [
    // An object's own message is the one for a missing key: no content, no id.
    v.object(
      {
        type: v.literal("send"),
        content: v.pipe(
          v.string(EMPTY),
          v.trim(),
          v.nonEmpty(EMPTY),
          v.maxLength(MAX_MESSAGE_LENGTH, `Messages can be at most ${MAX_MESSAGE_LENGTH} characters`),
        ),
      },
      EMPTY,
    ),
    v.object({ type: v.literal("delete"), id: v.pipe(v.number(UNKNOWN_MESSAGE), v.integer(UNKNOWN_MESSAGE)) }, UNKNOWN_MESSAGE),
    v.object({ type: v.literal("typing") }),
    // The page of messages older than `before` (a message id: a cursor, so new messages never shift it).
    v.object({ type: v.literal("older"), before: v.pipe(v.number(UNKNOWN_MESSAGE), v.integer(UNKNOWN_MESSAGE)) }, UNKNOWN_MESSAGE),
    // The member has seen the room up to this message: their unread count starts after it.
    v.object({ type: v.literal("read"), id: v.pipe(v.number(UNKNOWN_MESSAGE), v.integer(UNKNOWN_MESSAGE)) }, UNKNOWN_MESSAGE),
    // Members whose name starts with `prefix`, to mention.
    v.object({ type: v.literal("mentionable"), prefix: v.pipe(v.string(), v.maxLength(32)) }),
  ],
  "Unknown request",
);

// Binary frames share the size text: the browser never sends them, so only a foreign client sees it.
const clientWireSchema = v.pipe(
  v.string(TOO_LARGE),
  v.maxLength(MAX_FRAME_LENGTH, TOO_LARGE),
  v.parseJson(undefined, "Unreadable message"),
  clientFrameSchema,
);

const serverFrameSchema = v.variant("type", [
  // On joining: the room, who you are in it, the newest messages (oldest first), whether older
  // ones exist, the pinned messages and how many members are here.
  v.object({
    type: v.literal("history"),
    room: roomSchema,
    you: youSchema,
    messages: v.array(messageSchema),
    more: v.boolean(),
    pins: v.array(messageSchema),
    present: v.number(),
  }),
  // An older page, oldest first, answering "older".
  v.object({ type: v.literal("older"), before: messageId, messages: v.array(messageSchema), more: v.boolean() }),
  v.object({ type: v.literal("message"), message: messageSchema }),
  // Deleted by its author: gone.
  v.object({ type: v.literal("deleted"), id: messageId }),
  // Removed by staff: shown as removed where they were.
  v.object({ type: v.literal("removed"), ids: v.array(messageId) }),
  v.object({ type: v.literal("pins"), pins: v.array(messageSchema) }),
  v.object({ type: v.literal("typing"), members: v.array(memberSchema) }),
  v.object({ type: v.literal("presence"), present: v.number() }),
  // What changed about you here (muted, unmuted).
  v.object({ type: v.literal("you"), you: youSchema }),
  // The room's rules changed (slow mode, links).
  v.object({ type: v.literal("room"), room: roomSchema }),
  v.object({ type: v.literal("mentionable"), prefix: v.string(), members: v.array(memberSchema) }),
  v.object({
    type: v.literal("error"),
    action: v.picklist(["send", "delete", "older"]),
    message: v.string(),
    // Until when the refusal holds (a mute, slow mode), for the page to count down.
    until: v.optional(v.number()),
  }),
  // The socket's session has ended; the room closes the socket and ignores anything more on it.
  v.object({ type: v.literal("session-ended") }),
  // The room will not keep this socket: banned from the chat, the licence ended, the room archived.
  v.object({ type: v.literal("closed"), reason: v.picklist(["banned", "access-ended", "archived"]), message: v.string() }),
]);

const serverWireSchema = v.pipe(v.string(), v.parseJson(), serverFrameSchema);

export type ClientFrame = v.InferOutput<typeof clientFrameSchema>;
export type ServerFrame = v.InferOutput<typeof serverFrameSchema>;
export type ErrorFrame = Extract<ServerFrame, { type: "error" }>;
export type ClosedFrame = Extract<ServerFrame, { type: "closed" }>;

/** Problems inside a delete frame answer the Delete link, inside an older frame the scroll-back; every other problem answers sending. */
function actionOf(issue: v.BaseIssue<unknown>): ErrorFrame["action"] {
  const frame: unknown = issue.path?.[0]?.input;
  const type = typeof frame === "object" && frame !== null && "type" in frame ? frame.type : null;
  return type === "delete" ? "delete" : type === "older" ? "older" : "send";
}

/**
 * A frame as the room received it: the checked frame, or the error frame that answers it. (Not
 * just null: the member is told what was wrong, in the words the room has always used.)
 */
export function parseClientFrame(raw: string | ArrayBuffer): { ok: true; frame: ClientFrame } | { ok: false; error: ErrorFrame } {
  const result = v.safeParse(clientWireSchema, raw);
  if (result.success) return { ok: true, frame: result.output };
  const [issue] = result.issues;
  return { ok: false, error: { type: "error", action: actionOf(issue), message: issue.message } };
}

/** A frame as the browser received it, or null when it is not one the protocol knows. */
export function parseServerFrame(data: unknown): ServerFrame | null {
  const result = v.safeParse(serverWireSchema, data);
  return result.success ? result.output : null;
}

/** How long until `until`, in the largest whole unit that fits, rounded up: "45 seconds", "10 minutes", "3 hours", "2 days". */
export function timeLeft(until: number, now: number): string {
  const ms = Math.max(1000, until - now);
  if (ms < MINUTE_MS) return counted(Math.ceil(ms / 1000), "second");
  if (ms < HOUR_MS) return counted(Math.ceil(ms / MINUTE_MS), "minute");
  if (ms < DAY_MS) return counted(Math.ceil(ms / HOUR_MS), "hour");
  return counted(Math.ceil(ms / DAY_MS), "day");
}

/** What a muted member is told when a message is refused. */
export const mutedMessage = (until: number, now: number) => `You are muted for ${timeLeft(until, now)} more.`;

/** What slow mode tells a member who sent too soon. */
export const slowModeMessage = (until: number, now: number) => `Slow mode is on: you can send again in ${timeLeft(until, now)}.`;

const MENTION = /@([A-Za-z0-9_.-]{3,24})/g;

/** The names a message mentions ("@name"), lower-cased, at most MAX_MENTIONS; a trailing dot or dash is punctuation, not name. */
export function mentionedNames(content: string): string[] {
  const names = new Set<string>();
  for (const [, name] of content.matchAll(MENTION)) {
    const trimmed = name!.replace(/[.-]+$/, "").toLowerCase();
    if (trimmed.length >= 3) names.add(trimmed);
    if (names.size === MAX_MENTIONS) break;
  }
  return [...names];
}

/** Splits a message into text and "@name" parts, for the page to show the mentions apart. */
export function mentionParts(content: string): { text: string; mention: boolean }[] {
  const parts: { text: string; mention: boolean }[] = [];
  let last = 0;
  for (const match of content.matchAll(MENTION)) {
    if (match.index > last) parts.push({ text: content.slice(last, match.index), mention: false });
    parts.push({ text: match[0], mention: true });
    last = match.index + match[0].length;
  }
  if (last < content.length) parts.push({ text: content.slice(last), mention: false });
  return parts;
}

// A link as a member would type one: a scheme, "www.", or a name under a common top-level domain.
const LINK =
  /(?:\b[a-z][a-z0-9+.-]*:\/\/|\bwww\.)\S+|\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|net|org|io|gg|co|me|xyz|ru|app|dev|info|biz|link|ly|to|tk|cc|tv|uk|de|fr|shop|site|online)\b/i;

export const containsLink = (content: string) => LINK.test(content);

/** The first blocked word `content` holds as a word of its own (any case), or null. */
export function blockedWordIn(content: string, words: readonly string[]): string | null {
  const text = content.toLowerCase();
  for (const word of words) {
    const at = word.toLowerCase();
    if (at === "") continue;
    for (let i = text.indexOf(at); i !== -1; i = text.indexOf(at, i + 1)) {
      const before = text[i - 1];
      const after = text[i + at.length];
      if (!isWordChar(before) && !isWordChar(after)) return word;
    }
  }
  return null;
}

const isWordChar = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}_]/u.test(c);

/** A message as staff's reports queue shows it, with the few around it and every open report of it. */
export interface ReportedMessage {
  room: string;
  roomName: string;
  messageId: number;
  authorId: string | null;
  authorName: string;
  content: string;
  messageAt: number;
  context: { id: number; username: string; content: string; createdAt: number }[];
  reports: { id: number; reporter: string | null; reason: string; createdAt: number }[];
}

/** A mute or ban in force, as the moderation page lists it. */
export interface ChatSanction {
  id: number;
  userId: string;
  username: string | null;
  kind: "mute" | "ban";
  until: number | null;
  reason: string;
  by: string | null;
  createdAt: number;
}

/** A room's rules, as staff set them. */
export interface RoomRules {
  slowModeSeconds: number;
  linkRule: LinkRule;
  blockedWords: string[];
  retentionDays: number;
}

/** A room as the moderation page lists it. */
export interface StaffRoom {
  slug: string;
  name: string;
  kind: RoomKind;
  product: string | null;
  rules: RoomRules;
  archivedAt: number | null;
}

/** A room in the hub's sidebar: what the member has not read of it, and how much of that mentions them. */
export interface SidebarRoom {
  slug: string;
  name: string;
  kind: RoomKind;
  unread: number;
  mentions: number;
}
