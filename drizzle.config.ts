import { defineConfig } from "drizzle-kit";

// drizzle-kit writes the SQL; wrangler applies it (locally and to the remote D1 database).
export default defineConfig({
  dialect: "sqlite",
  schema: "./app/server/platform/db/schema.server.ts",
  out: "./migrations",
});
