// A chat room: one Durable Object per room (decisions 015, 094 and 095). It uses the WebSocket
// hibernation API, so an idle room costs nothing; each socket's member, mute and typing state live
// in its attachment and survive hibernation, and what the room counts per member (the flood limit,
// slow mode) lives in its storage, not in memory. Messages, pins, read positions and mentions are
// kept in the room's own SQLite storage. Who a member is, their role and their chat standing come
// only from the Worker, which read them from D1 before the upgrade; what a member sends is checked
// against the protocol's schema and then against the room's rules, here, whatever the page does.
// Staff act through the Worker (audited there), which calls the room's methods below.
//
// The Worker's entry must export this class, and every cold start evaluates the entry: so the
// class itself is a shell, and the room's storage, protocol and rules (workers/chat-room-core.ts)
// load while the object starts, before it is handed any event (decision 116).
import { DurableObject } from "cloudflare:workers";
import { onFirstUse } from "~/server/platform/on-first-use.server";
import type { ChatRoomCore } from "./chat-room-core";

const core = onFirstUse(() => import("./chat-room-core"));

type Room = ChatRoomCore;

export class ChatRoom extends DurableObject<Env> {
  /** Set before the runtime hands the object anything: the constructor blocks events until then. */
  private room!: Room;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => {
      this.room = await (await core()).openChatRoom(ctx, env);
    });
  }

  fetch(request: Request) {
    return this.room.fetch(request);
  }

  webSocketMessage(ws: WebSocket, raw: string | ArrayBuffer) {
    return this.room.webSocketMessage(ws, raw);
  }

  webSocketClose(ws: WebSocket, code: number) {
    return this.room.webSocketClose(ws, code);
  }

  webSocketError(ws: WebSocket) {
    return this.room.webSocketError(ws);
  }

  alarm() {
    return this.room.alarm();
  }

  // The Worker's calls (RPC), each as the room answers it.
  configure(...args: Parameters<Room["configure"]>) {
    return this.room.configure(...args);
  }

  applyStanding(...args: Parameters<Room["applyStanding"]>) {
    return this.room.applyStanding(...args);
  }

  removeMessages(...args: Parameters<Room["removeMessages"]>) {
    return this.room.removeMessages(...args);
  }

  pin(...args: Parameters<Room["pin"]>) {
    return this.room.pin(...args);
  }

  unpin(...args: Parameters<Room["unpin"]>) {
    return this.room.unpin(...args);
  }

  archive() {
    return this.room.archive();
  }

  reportSnapshot(...args: Parameters<Room["reportSnapshot"]>) {
    return this.room.reportSnapshot(...args);
  }

  unreadFor(...args: Parameters<Room["unreadFor"]>) {
    return this.room.unreadFor(...args);
  }

  endSessions(...args: Parameters<Room["endSessions"]>) {
    return this.room.endSessions(...args);
  }

  memberMessages(...args: Parameters<Room["memberMessages"]>) {
    return this.room.memberMessages(...args);
  }

  rejectedFrames() {
    return this.room.rejectedFrames();
  }
}
