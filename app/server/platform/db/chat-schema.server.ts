// A chat room's own data model, kept in its ChatRoom Durable Object's SQLite storage (not D1):
// messages live and die with the room (decisions 015, 094 and 095). Typing presence is never stored.
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const messages = sqliteTable(
  "messages",
  {
    // Ever rising: the cursor history pages by, and the order unread counts start after.
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: text("user_id").notNull(),
    // The author's username when the message was sent (usernames never change).
    username: text("username"),
    content: text("content").notNull(),
    createdAt: integer("created_at").notNull(),
    // The members it mentions, by id.
    mentions: text("mentions", { mode: "json" })
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'`),
    // Written by staff.
    staff: integer("staff", { mode: "boolean" }).notNull().default(false),
    // Removed by staff: the row stays (shown as removed where it was), its content emptied.
    removedAt: integer("removed_at"),
    removedBy: text("removed_by"),
  },
  (t) => [index("messages_user_time").on(t.userId, t.createdAt), index("messages_created").on(t.createdAt)],
);

// Who each message mentions, for a member's unread mentions.
export const mentions = sqliteTable("mentions", { userId: text("user_id").notNull(), messageId: integer("message_id").notNull() }, (t) => [
  primaryKey({ columns: [t.userId, t.messageId] }),
]);

// Where each member has read the room up to: their unread count starts after it.
export const reads = sqliteTable("reads", {
  userId: text("user_id").primaryKey(),
  lastReadId: integer("last_read_id").notNull(),
});

// Members who have been in the room: whom a message can mention, and the suggestions offered.
export const members = sqliteTable(
  "members",
  {
    userId: text("user_id").primaryKey(),
    username: text("username").notNull(),
    lastSeenAt: integer("last_seen_at").notNull(),
  },
  (t) => [index("members_name").on(sql`lower(${t.username})`)],
);

export const pins = sqliteTable("pins", {
  messageId: integer("message_id").primaryKey(),
  pinnedAt: integer("pinned_at").notNull(),
  pinnedBy: text("pinned_by").notNull(),
});
