// The chat protocol, shared by the browser and the ChatRoom Durable Object. Frames are JSON text;
// each side checks what it receives against the schemas here rather than trusting the other end.
import * as v from "valibot";

export const HISTORY_LIMIT = 100;
export const MAX_MESSAGE_LENGTH = 1000;
/** A frame longer than this is refused before it is parsed. */
export const MAX_FRAME_LENGTH = 8 * 1024;
export const TYPING_TIMEOUT_MS = 2000;
/** A member may send this many messages within the window. */
export const RATE_LIMIT = { messages: 5, windowMs: 10_000 };
export const UNKNOWN_USER = "Unknown User";

/** Headers the Worker sets (and strips from the browser's request) to tell the room who is connecting. */
export const MEMBER_ID_HEADER = "X-Chat-Member-Id";
export const MEMBER_NAME_HEADER = "X-Chat-Member-Name";
export const MEMBER_SESSION_HEADER = "X-Chat-Member-Session";
/**
 * The close code of a socket whose session has ended: the browser signs in again rather than
 * reconnecting. A "session-ended" frame goes first, because a close frame is not passed on by
 * every proxy in between (the local development server drops it).
 */
export const SESSION_ENDED_CLOSE = 4001;

const memberSchema = v.object({ userId: v.string(), username: v.string() });
const messageId = v.pipe(v.number(), v.integer());
const messageSchema = v.object({ id: messageId, userId: v.string(), username: v.string(), content: v.string(), createdAt: v.number() });

export type ChatMember = v.InferOutput<typeof memberSchema>;
export type ChatMessage = v.InferOutput<typeof messageSchema>;

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
  v.object({ type: v.literal("history"), messages: v.array(messageSchema), you: memberSchema }),
  v.object({ type: v.literal("message"), message: messageSchema }),
  v.object({ type: v.literal("deleted"), id: messageId }),
  v.object({ type: v.literal("typing"), members: v.array(memberSchema) }),
  v.object({ type: v.literal("error"), action: v.picklist(["send", "delete"]), message: v.string() }),
  // The socket's session has ended; the room closes the socket and ignores anything more on it.
  v.object({ type: v.literal("session-ended") }),
]);

const serverWireSchema = v.pipe(v.string(), v.parseJson(), serverFrameSchema);

export type ClientFrame = v.InferOutput<typeof clientFrameSchema>;
export type ServerFrame = v.InferOutput<typeof serverFrameSchema>;
export type ErrorFrame = Extract<ServerFrame, { type: "error" }>;

/** Problems inside a delete frame answer the Delete link; every other problem answers sending. */
function actionOf(issue: v.BaseIssue<unknown>): ErrorFrame["action"] {
  const frame: unknown = issue.path?.[0]?.input;
  return typeof frame === "object" && frame !== null && "type" in frame && frame.type === "delete" ? "delete" : "send";
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
