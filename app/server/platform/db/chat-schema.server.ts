// The chat room's own data model, kept in the ChatRoom Durable Object's SQLite storage (not D1):
// messages live and die with the room. Typing presence is never stored.
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const messages = sqliteTable(
  "messages",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: text("user_id").notNull(),
    // The author's username when the message was sent (usernames never change).
    username: text("username"),
    content: text("content").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("messages_user").on(t.userId)],
);
