// drizzle-kit writes the chat room's migrations as a JavaScript module.
declare module "*/chat-room/migrations.js" {
  const migrations: {
    journal: { entries: { idx: number; when: number; tag: string; breakpoints: boolean }[] };
    migrations: Record<string, string>;
  };
  export default migrations;
}
