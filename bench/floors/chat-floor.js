/* global WebSocketPair -- a Workers runtime class */
// The chat floor: the least a chat room on a Durable Object can do, on the same runtime as the
// app's room. One object per room, hibernatable WebSockets, each message stored in the object's
// SQLite and sent to every socket; an older page read by id from the same table. No session, no
// member, no rules, no mentions, no presence: what any correct room must do at least.
import { DurableObject } from "cloudflare:workers";

const PAGE = 50;

export class FloorRoom extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    ctx.storage.sql.exec(
      "create table if not exists messages (id integer primary key autoincrement, user_id text not null, content text not null, created_at integer not null)",
    );
  }

  async fetch(request) {
    if (request.headers.get("Upgrade") !== "websocket") return new Response("Expected a WebSocket upgrade", { status: 426 });
    const { 0: client, 1: server } = new WebSocketPair();
    this.ctx.acceptWebSocket(server);
    server.serializeAttachment({ userId: new URL(request.url).searchParams.get("member") ?? "member" });
    return new Response(null, { status: 101, webSocket: client });
  }

  async webSocketMessage(ws, raw) {
    const frame = JSON.parse(raw);
    if (frame.type === "send") {
      const { userId } = ws.deserializeAttachment();
      const createdAt = Date.now();
      const { id } = this.ctx.storage.sql
        .exec("insert into messages (user_id, content, created_at) values (?, ?, ?) returning id", userId, frame.content, createdAt)
        .one();
      const text = JSON.stringify({ type: "message", message: { id, userId, content: frame.content, createdAt } });
      for (const socket of this.ctx.getWebSockets()) {
        try {
          socket.send(text);
        } catch {
          // closing
        }
      }
    } else if (frame.type === "older") {
      const rows = this.ctx.storage.sql
        .exec(
          "select id, user_id as userId, content, created_at as createdAt from messages where id < ? order by id desc limit ?",
          frame.before,
          PAGE + 1,
        )
        .toArray();
      ws.send(JSON.stringify({ type: "older", before: frame.before, messages: rows.slice(0, PAGE).reverse(), more: rows.length > PAGE }));
    }
  }

  async webSocketClose(ws, code) {
    try {
      ws.close(code === 1005 || code === 1006 ? 1000 : code, "closed");
    } catch {
      // closed already
    }
  }
}

export default {
  fetch(request, env) {
    const room = new URL(request.url).searchParams.get("room") ?? "floor";
    return env.ROOM.get(env.ROOM.idFromName(room)).fetch(request);
  },
};
