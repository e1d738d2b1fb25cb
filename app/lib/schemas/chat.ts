// The chat's forms: a member's report of a message, staff's moderation (messages, members,
// reports) and their rooms. Checked in the browser and again on the server.
import * as v from "valibot";
import {
  LINK_RULES,
  MAX_BLOCKED_WORDS,
  MAX_MUTE_MINUTES,
  MAX_REASON_LENGTH,
  RETENTION_MAX_DAYS,
  ROOM_KINDS,
  SLOW_MODE_MAX_SECONDS,
} from "../chat";

const text = () => v.optional(v.string(), "");

const reason = v.pipe(
  text(),
  v.trim(),
  v.minLength(3, "Say why (at least 3 characters)"),
  v.maxLength(MAX_REASON_LENGTH, `Keep the reason under ${MAX_REASON_LENGTH} characters`),
);
const room = v.pipe(text(), v.trim(), v.regex(/^[a-z0-9][a-z0-9-]{0,47}$/, "Unknown room"));
const message = v.pipe(text(), v.trim(), v.regex(/^\d{1,15}$/, "Unknown message"), v.transform(Number));
const member = v.pipe(text(), v.trim(), v.minLength(1, "Unknown member"), v.maxLength(64, "Unknown member"));
// The report a one-click action answers, if it came from the reports queue.
const fromReport = v.pipe(
  text(),
  v.trim(),
  v.regex(/^(?:\d{1,15})?$/, "Unknown report"),
  v.transform((value) => (value === "" ? null : Number(value))),
);
const wholeNumber = (message: string, min: number, max: number) =>
  v.pipe(text(), v.trim(), v.regex(/^\d{1,7}$/, message), v.transform(Number), v.minValue(min, message), v.maxValue(max, message));

export const reportMessageSchema = v.object({
  intent: v.literal("report"),
  message,
  reason: v.pipe(
    text(),
    v.trim(),
    v.minLength(3, "Tell staff what is wrong (at least 3 characters)"),
    v.maxLength(MAX_REASON_LENGTH, `Keep the reason under ${MAX_REASON_LENGTH} characters`),
  ),
});

export const chatModerationSchema = v.variant(
  "intent",
  [
    v.object({ intent: v.literal("delete"), room, message, reason, report: fromReport }),
    // "Delete last hour": everything the member wrote in the last hour, in every room.
    v.object({ intent: v.literal("purge"), member, reason, report: fromReport }),
    v.object({
      intent: v.literal("mute"),
      member,
      minutes: wholeNumber("Choose how long, up to 30 days", 1, MAX_MUTE_MINUTES),
      reason,
      report: fromReport,
    }),
    v.object({ intent: v.literal("unmute"), member }),
    v.object({ intent: v.literal("ban"), member, reason, report: fromReport }),
    v.object({ intent: v.literal("unban"), member }),
    v.object({ intent: v.literal("pin"), room, message }),
    v.object({ intent: v.literal("unpin"), room, message }),
    v.object({
      intent: v.literal("dismiss"),
      report: v.pipe(text(), v.trim(), v.regex(/^\d{1,15}$/, "Unknown report"), v.transform(Number)),
    }),
  ],
  "Unknown request",
);

export type ChatModeration = v.InferOutput<typeof chatModerationSchema>;

/** Blocked words as staff type them: one a line (or separated by commas), trimmed, blanks and repeats dropped. */
const blockedWords = v.pipe(
  text(),
  v.transform((value) => [
    ...new Set(
      value
        .split(/[\n,]/)
        .map((word) => word.trim().toLowerCase())
        .filter(Boolean),
    ),
  ]),
  v.maxLength(MAX_BLOCKED_WORDS, `At most ${MAX_BLOCKED_WORDS} blocked words`),
  v.check((words) => words.every((word) => word.length <= 40), "Keep each blocked word under 40 characters"),
);

export const chatRoomSchema = v.variant(
  "intent",
  [
    v.object({
      intent: v.literal("create"),
      name: v.pipe(
        text(),
        v.trim(),
        v.minLength(2, "Name the room (at least 2 characters)"),
        v.maxLength(40, "Keep the name under 40 characters"),
      ),
      kind: v.picklist(ROOM_KINDS, "Choose who the room is for"),
      // The product whose licence holders a product room is for; empty for the other kinds.
      product: v.pipe(text(), v.trim(), v.maxLength(100, "Unknown product")),
    }),
    v.object({
      intent: v.literal("settings"),
      room,
      slowModeSeconds: wholeNumber(`Use a number of seconds from 0 to ${SLOW_MODE_MAX_SECONDS}`, 0, SLOW_MODE_MAX_SECONDS),
      linkRule: v.picklist(LINK_RULES, "Choose who may post links"),
      blockedWords,
      retentionDays: wholeNumber(`Keep messages from 1 to ${RETENTION_MAX_DAYS} days`, 1, RETENTION_MAX_DAYS),
    }),
    v.object({ intent: v.literal("archive"), room }),
    v.object({ intent: v.literal("restore"), room }),
  ],
  "Unknown request",
);

export type ChatRoomForm = v.InferOutput<typeof chatRoomSchema>;
