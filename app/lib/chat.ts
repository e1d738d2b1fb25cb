// The chat protocol, shared by the browser and the ChatRoom Durable Object. Frames are JSON.
export const HISTORY_LIMIT = 100;
export const MAX_MESSAGE_LENGTH = 1000;
export const TYPING_TIMEOUT_MS = 2000;
/** A member may send this many messages within the window. */
export const RATE_LIMIT = { messages: 5, windowMs: 10_000 };
export const UNKNOWN_USER = "Unknown User";

export interface ChatMessage {
  id: number;
  userId: string;
  username: string;
  content: string;
  createdAt: number;
}

export interface ChatMember {
  userId: string;
  username: string;
}

export type ClientFrame = { type: "send"; content: string } | { type: "delete"; id: number } | { type: "typing" };

export type ServerFrame =
  | { type: "history"; messages: ChatMessage[]; you: ChatMember }
  | { type: "message"; message: ChatMessage }
  | { type: "deleted"; id: number }
  | { type: "typing"; members: ChatMember[] }
  | { type: "error"; action: "send" | "delete"; message: string };
