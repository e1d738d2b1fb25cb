// The members' chat room. One Durable Object instance holds one room.
import { DurableObject } from "cloudflare:workers";

export class ChatRoom extends DurableObject<Env> {}
