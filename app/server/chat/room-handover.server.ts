// What the Worker hands a chat room with a socket: the room's rules and the member, read from D1,
// in two headers. The room's class is part of the Worker's entry, which every cold start evaluates,
// so this module imports nothing of the chat's domain but the protocol (decision 107).
import * as v from "valibot";
import { roomSchema } from "~/lib/chat";

/** The rules a room enforces, as the Worker hands them to it (from chat_rooms). */
export const roomConfigSchema = v.object({ ...roomSchema.entries, blockedWords: v.array(v.string()), retentionDays: v.number() });
export type RoomConfig = v.InferOutput<typeof roomConfigSchema>;

/** The member behind a socket, as the Worker established it: from the session, the role and the chat's sanctions. */
export const socketMemberSchema = v.object({
  userId: v.string(),
  username: v.string(),
  email: v.string(),
  // The session the socket was opened with: the room closes it when the session ends.
  session: v.string(),
  moderator: v.boolean(),
  mutedUntil: v.nullable(v.number()),
  banned: v.boolean(),
  // In a product's room: until when the member's live licence of it runs by itself (null: no set
  // end). Staff, and the other rooms, have none.
  accessUntil: v.optional(v.nullable(v.number())),
});
export type SocketMember = v.InferOutput<typeof socketMemberSchema>;

/** The headers the Worker sets (anything the browser sent under these names is never passed on). */
export const ROOM_HEADER = "X-Chat-Room";
export const MEMBER_HEADER = "X-Chat-Member";

// JSON, URI-encoded: a header carries Latin-1 only, and room names and blocked words may not be.
export const encodeHeader = (value: unknown) => encodeURIComponent(JSON.stringify(value));

/** The header's value under `schema`, or null when it is missing or not what the Worker writes. */
export function decodeHeader<S extends v.GenericSchema>(value: string | null, schema: S): v.InferOutput<S> | null {
  if (value === null) return null;
  try {
    const parsed = v.safeParse(schema, JSON.parse(decodeURIComponent(value)));
    return parsed.success ? parsed.output : null;
  } catch {
    return null;
  }
}
