import { defineConfig } from "drizzle-kit";

// The chat room's schema lives in the ChatRoom Durable Object's SQLite storage; the object
// applies these migrations itself when it starts.
export default defineConfig({
  dialect: "sqlite",
  driver: "durable-sqlite",
  schema: "./app/server/platform/db/chat-schema.server.ts",
  out: "./migrations/chat-room",
});
