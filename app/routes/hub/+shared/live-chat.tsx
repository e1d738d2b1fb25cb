// A chat room in the hub: a WebSocket to the room, reconnecting with backoff when it drops. The
// newest messages come on joining and older pages as the member scrolls up (by cursor); pinned
// messages sit at the top; a message that mentions the member is highlighted; what the member has
// seen is told to the room, which keeps their unread count. Everything the room refuses (a mute,
// slow mode, a blocked word) comes back as a toast in the room's words; a room that closes the
// socket (a ban, a licence that ended, an archived room) says why, and is not reconnected to.
import { useCallback, useEffect, useLayoutEffect, useReducer, useRef, useState } from "react";
import { useFetcher } from "react-router";
import { MessageCircle, Pin, Users } from "~/components/icons";
import { LocalTime } from "~/components/local-time";
import { useToast } from "~/components/toaster";
import { Badge } from "~/components/ui/badge";
import { Card } from "~/components/ui/card";
import { useResultToast } from "~/components/use-result-toast";
import {
  type ChatMember,
  type ChatMessage,
  type ChatRoomInfo,
  type ChatYou,
  type ClientFrame,
  type ClosedFrame,
  mentionParts,
  mutedMessage,
  parseServerFrame,
  PING,
  PING_EVERY_MS,
  ROOM_CLOSED_CLOSE,
  type ServerFrame,
  SESSION_ENDED_CLOSE,
} from "~/lib/chat";
import { counted } from "~/lib/format";
import { ChatComposer } from "./chat-composer";
import { ModerateDialog, ReportDialog } from "./chat-dialogs";

type Connection =
  | { state: "connecting" }
  | { state: "open" }
  | { state: "waiting"; retryAt: number }
  | { state: "signed-out" }
  | { state: "closed"; frame: ClosedFrame };

const MAX_BACKOFF_MS = 30_000;
/** How often the room is told what the member has read, at most. */
const READ_EVERY_MS = 1500;
/** Closer than this to the top, the next older page is asked for. */
const NEAR_TOP_PX = 48;

function typingText(members: ChatMember[]): string {
  if (members.length === 0) return "";
  if (members.length === 1) return `${members[0]!.username} is typing...`;
  if (members.length === 2) return `${members[0]!.username} and ${members[1]!.username} are typing...`;
  return "Several people are typing...";
}

function ConnectionBadge({ connection }: { connection: Connection }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (connection.state !== "waiting") return;
    const timer = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(timer);
  }, [connection.state]);
  const label =
    connection.state === "open"
      ? "Connected"
      : connection.state === "connecting"
        ? "Connecting..."
        : connection.state === "signed-out"
          ? "Signed out. Log in again to chat."
          : connection.state === "closed"
            ? "Disconnected"
            : `Reconnecting in ${Math.max(1, Math.ceil((connection.retryAt - now) / 1000))}s`;
  const dot = connection.state === "open" ? "bg-green-500" : connection.state === "connecting" ? "bg-yellow-400" : "bg-red-500";
  return (
    <span role="status" className="flex items-center gap-2 text-xs text-muted">
      <span className={`size-2 rounded-full ${dot}`} aria-hidden /> {label}
    </span>
  );
}

interface RoomState {
  room: ChatRoomInfo | null;
  you: ChatYou | null;
  messages: ChatMessage[];
  more: boolean;
  loadingOlder: boolean;
  pins: ChatMessage[];
  present: number;
  typing: ChatMember[];
}

const EMPTY: RoomState = { room: null, you: null, messages: [], more: false, loadingOlder: false, pins: [], present: 0, typing: [] };

type RoomEvent = ServerFrame | { type: "asking-older" } | { type: "left" };

const byId = (a: ChatMessage, b: ChatMessage) => a.id - b.id;

function roomReducer(state: RoomState, event: RoomEvent): RoomState {
  switch (event.type) {
    case "history":
      return {
        ...state,
        room: event.room,
        you: event.you,
        messages: event.messages,
        more: event.more,
        loadingOlder: false,
        pins: event.pins,
        present: event.present,
      };
    case "older": {
      const known = new Set(state.messages.map((m) => m.id));
      return {
        ...state,
        messages: [...event.messages.filter((m) => !known.has(m.id)), ...state.messages].sort(byId),
        more: event.more,
        loadingOlder: false,
      };
    }
    case "asking-older":
      return { ...state, loadingOlder: true };
    case "message":
      return { ...state, messages: [...state.messages.filter((m) => m.id !== event.message.id), event.message] };
    case "deleted":
      return { ...state, messages: state.messages.filter((m) => m.id !== event.id) };
    case "removed": {
      const ids = new Set(event.ids);
      const removed = (m: ChatMessage) => (ids.has(m.id) ? { ...m, content: "", mentions: [], removed: true } : m);
      return { ...state, messages: state.messages.map(removed), pins: state.pins.filter((m) => !ids.has(m.id)) };
    }
    case "pins":
      return { ...state, pins: event.pins };
    case "typing":
      return { ...state, typing: event.members };
    case "presence":
      return { ...state, present: event.present };
    case "you":
      return { ...state, you: event.you };
    case "room":
      return { ...state, room: event.room };
    case "left":
      return { ...state, typing: [], loadingOlder: false };
    default:
      return state;
  }
}

/** The socket to one room, the room as it has told us so far, and a way to send it frames. */
function useRoomSocket(room: string, onMentionable: (frame: Extract<ServerFrame, { type: "mentionable" }>) => void) {
  const [connection, setConnection] = useState<Connection>({ state: "connecting" });
  const [state, dispatch] = useReducer(roomReducer, EMPTY);
  const socketRef = useRef<WebSocket | null>(null);
  const { toast } = useToast();
  const mentionableRef = useRef(onMentionable);
  mentionableRef.current = onMentionable;

  useEffect(() => {
    let attempt = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const stop = (next: Connection) => {
      stopped = true;
      socketRef.current = null;
      dispatch({ type: "left" });
      setConnection(next);
    };

    const connect = () => {
      setConnection({ state: "connecting" });
      const socket = new WebSocket(
        `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/chat/ws?room=${encodeURIComponent(room)}`,
      );
      socketRef.current = socket;
      // Handlers of a socket that has been replaced (or torn down) do nothing.
      const current = () => socketRef.current === socket && !stopped;
      // Keeps the member counted as here (the room's runtime answers without waking the room).
      const keepAlive = setInterval(() => socket.readyState === WebSocket.OPEN && socket.send(PING), PING_EVERY_MS);
      socket.addEventListener("close", () => clearInterval(keepAlive));
      socket.onopen = () => {
        if (!current()) return;
        attempt = 0;
        setConnection({ state: "open" });
      };
      socket.onmessage = (event) => {
        if (!current()) return;
        // A frame the protocol does not know (a newer or broken server) is dropped, not guessed at.
        const frame = parseServerFrame(event.data);
        if (!frame) return;
        if (frame.type === "error") {
          if (frame.action === "older") dispatch({ type: "left" });
          toast({
            title:
              frame.action === "delete"
                ? "Failed to delete message"
                : frame.action === "older"
                  ? "Failed to load messages"
                  : "Failed to send message",
            description: frame.message,
            variant: "destructive",
          });
        } else if (frame.type === "mentionable") {
          mentionableRef.current(frame);
        } else if (frame.type === "session-ended") {
          stop({ state: "signed-out" });
          socket.close(SESSION_ENDED_CLOSE, "Session ended");
        } else if (frame.type === "closed") {
          stop({ state: "closed", frame });
          socket.close(ROOM_CLOSED_CLOSE, frame.reason);
        } else {
          dispatch(frame);
        }
      };
      socket.onclose = (event) => {
        if (!current()) return;
        socketRef.current = null;
        dispatch({ type: "left" });
        // The session behind this socket has ended: reconnecting would only be refused.
        if (event.code === SESSION_ENDED_CLOSE) return stop({ state: "signed-out" });
        // Exponential backoff with jitter, so a restarting server is not stampeded.
        const delay = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** attempt) * (0.75 + Math.random() * 0.5);
        attempt++;
        setConnection({ state: "waiting", retryAt: Date.now() + delay });
        timer = setTimeout(connect, delay);
      };
    };
    connect();
    return () => {
      stopped = true;
      clearTimeout(timer);
      socketRef.current?.close(1000, "leaving");
    };
  }, [room, toast]);

  const send = useCallback(
    (frame: ClientFrame, failure?: string) => {
      const socket = socketRef.current;
      if (!socket || socket.readyState !== WebSocket.OPEN) {
        if (failure) toast({ title: failure, description: "The chat is not connected right now.", variant: "destructive" });
        return false;
      }
      socket.send(JSON.stringify(frame));
      return true;
    },
    [toast],
  );
  return { connection, state, dispatch, send };
}

function MessageText({ message, me }: { message: ChatMessage; me: ChatYou | null }) {
  if (message.removed) return <p className="text-muted italic">removed by staff</p>;
  return (
    <p className="break-words whitespace-pre-wrap text-zinc-200">
      {mentionParts(message.content).map((part, i) =>
        part.mention ? (
          <span
            key={i}
            className={`rounded px-0.5 font-semibold ${me && part.text.slice(1).toLowerCase() === me.username.toLowerCase() ? "bg-accent text-zinc-950" : "text-sky-300"}`}
          >
            {part.text}
          </span>
        ) : (
          part.text
        ),
      )}
    </p>
  );
}

/** A pin or unpin, sent at once (no reason asked: it hides nothing). */
function PinButton({ room, message, pinned }: { room: string; message: ChatMessage; pinned: boolean }) {
  const fetcher = useFetcher();
  useResultToast(fetcher);
  return (
    <fetcher.Form method="post" action="/dashboard/chat-moderation" className="inline">
      <input type="hidden" name="intent" value={pinned ? "unpin" : "pin"} />
      <input type="hidden" name="room" value={room} />
      <input type="hidden" name="message" value={message.id} />
      <button type="submit" className="text-xs text-muted underline hover:text-white" disabled={fetcher.state !== "idle"}>
        {pinned ? "Unpin" : "Pin"}
      </button>
    </fetcher.Form>
  );
}

export function LiveChat({ room, title }: { room: string; title?: string }) {
  const [suggestions, setSuggestions] = useState<{ prefix: string; members: ChatMember[] } | null>(null);
  const { connection, state, dispatch, send } = useRoomSocket(room, setSuggestions);
  const { messages, you, pins } = state;
  const [reporting, setReporting] = useState<ChatMessage | null>(null);
  const [moderating, setModerating] = useState<ChatMessage | null>(null);
  const logRef = useRef<HTMLDivElement>(null);
  const stickToBottom = useRef(true);
  const olderFrom = useRef<{ height: number; top: number } | null>(null);
  const readRef = useRef({ sent: 0, at: 0, timer: undefined as ReturnType<typeof setTimeout> | undefined });
  const [now, setNow] = useState(() => Date.now());
  const mutedUntil = you?.mutedUntil ?? null;

  // While muted, the notice counts down.
  useEffect(() => {
    if (mutedUntil === null) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 15_000);
    return () => clearInterval(timer);
  }, [mutedUntil]);

  // Keeps the view where the member left it: at the bottom for new messages, or on the same message after an older page.
  useLayoutEffect(() => {
    const log = logRef.current;
    if (!log) return;
    const older = olderFrom.current;
    if (older) {
      log.scrollTop = log.scrollHeight - older.height + older.top;
      olderFrom.current = null;
    } else if (stickToBottom.current) {
      log.scrollTop = log.scrollHeight;
    }
  }, [messages]);

  const loadOlder = useCallback(() => {
    const first = messages[0];
    const log = logRef.current;
    if (!first || !state.more || state.loadingOlder || !log) return;
    olderFrom.current = { height: log.scrollHeight, top: log.scrollTop };
    if (send({ type: "older", before: first.id })) dispatch({ type: "asking-older" });
  }, [messages, state.more, state.loadingOlder, send, dispatch]);

  function onScroll() {
    const log = logRef.current;
    if (!log) return;
    stickToBottom.current = log.scrollHeight - log.scrollTop - log.clientHeight < 80;
    if (log.scrollTop < NEAR_TOP_PX) loadOlder();
  }

  // The room learns what the member has seen: the newest message, while the page is in view.
  const newest = messages.at(-1)?.id ?? 0;
  useEffect(() => {
    const read = readRef.current;
    const tell = () => {
      if (document.visibilityState !== "visible" || newest <= read.sent) return;
      const wait = read.at + READ_EVERY_MS - Date.now();
      clearTimeout(read.timer);
      if (wait > 0) {
        read.timer = setTimeout(tell, wait);
        return;
      }
      if (send({ type: "read", id: newest })) {
        read.sent = newest;
        read.at = Date.now();
      }
    };
    tell();
    document.addEventListener("visibilitychange", tell);
    return () => {
      clearTimeout(read.timer);
      document.removeEventListener("visibilitychange", tell);
    };
  }, [newest, send, connection.state]);

  const askMentionable = useCallback((prefix: string) => send({ type: "mentionable", prefix }), [send]);
  const othersTyping = state.typing.filter((m) => m.userId !== you?.userId);
  const pinnedIds = new Set(pins.map((m) => m.id));
  const heading = state.room?.name ?? title ?? "Live Chat";
  const closed = connection.state === "closed" ? connection.frame : null;

  return (
    <Card padding="p-0" className="flex flex-col" as="section" aria-label={`${heading} chat`}>
      <div className="flex flex-wrap items-center justify-between gap-x-3 gap-y-1 border-b border-line px-4 py-3 sm:px-5">
        <h2 className="flex items-center gap-2 font-bold">
          <MessageCircle className="size-5 text-accent" aria-hidden /> {heading}
        </h2>
        <div className="flex items-center gap-3">
          {connection.state === "open" ? (
            <span className="flex items-center gap-1 text-xs text-muted">
              <Users className="size-3.5" aria-hidden /> {counted(state.present, "member")} here
            </span>
          ) : null}
          <ConnectionBadge connection={connection} />
        </div>
      </div>
      {state.room && (state.room.slowModeSeconds > 0 || state.room.linkRule !== "allowed") ? (
        <p className="border-b border-line px-4 py-1.5 text-xs text-muted sm:px-5">
          {state.room.slowModeSeconds > 0 ? `Slow mode: one message every ${counted(state.room.slowModeSeconds, "second")}. ` : ""}
          {state.room.linkRule === "off" ? "No links. " : state.room.linkRule === "staff" ? "Only staff post links. " : ""}
        </p>
      ) : null}
      {pins.length > 0 ? (
        <section aria-label="Pinned messages" className="border-b border-line bg-panel-2/60 px-4 py-2 sm:px-5">
          <ul className="space-y-1 text-sm">
            {pins.map((pin) => (
              <li key={pin.id} className="flex items-start gap-2">
                <Pin className="mt-0.5 size-3.5 shrink-0 text-accent" aria-label="Pinned" />
                <span className="min-w-0 flex-1 truncate">
                  <span className="font-semibold">{pin.username}:</span> {pin.content}
                </span>
                {you?.moderator ? <PinButton room={room} message={pin} pinned /> : null}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {/* The log is the scrolling, announced region; the messages inside it are a plain list. */}
      <div
        ref={logRef}
        onScroll={onScroll}
        role="log"
        aria-live="polite"
        aria-label="Chat messages"
        className="h-96 overflow-y-auto px-4 py-4 sm:px-5"
      >
        {state.more ? (
          <div className="mb-3 text-center">
            <button
              type="button"
              onClick={loadOlder}
              disabled={state.loadingOlder}
              className="text-xs text-accent underline disabled:text-muted"
            >
              {state.loadingOlder ? "Loading older messages..." : "Load older messages"}
            </button>
          </div>
        ) : null}
        {connection.state === "connecting" && messages.length === 0 ? <p className="text-sm text-muted">Loading messages...</p> : null}
        {connection.state !== "connecting" && messages.length === 0 && !closed ? (
          <p className="text-sm text-muted">No messages yet. Say hello!</p>
        ) : null}
        <ol className="space-y-3">
          {messages.map((message) => {
            const mine = message.userId === you?.userId;
            const mentionsMe = you !== null && message.mentions.includes(you.userId);
            return (
              <li
                key={message.id}
                className={`text-sm ${mentionsMe ? "-mx-2 rounded-md border-l-4 border-accent bg-accent/10 px-2 py-1" : ""}`}
                aria-label={mentionsMe ? `${message.username} mentions you` : undefined}
              >
                <p className="flex flex-wrap items-baseline gap-x-2">
                  <span className={`font-semibold ${mine ? "text-accent" : ""}`}>{message.username}</span>
                  {message.staff ? <Badge tone="blue">Staff</Badge> : null}
                  {mentionsMe ? <Badge tone="orange">Mentions you</Badge> : null}
                  <LocalTime ms={message.createdAt} format="time" className="text-xs text-muted" />
                  {!message.removed && mine ? (
                    <button
                      type="button"
                      className="text-xs text-muted underline hover:text-red-400"
                      onClick={() => send({ type: "delete", id: message.id }, "Failed to delete message")}
                    >
                      Delete
                    </button>
                  ) : null}
                  {!message.removed && !mine && !you?.moderator ? (
                    <button type="button" className="text-xs text-muted underline hover:text-white" onClick={() => setReporting(message)}>
                      Report
                    </button>
                  ) : null}
                  {!message.removed && you?.moderator ? (
                    <PinButton room={room} message={message} pinned={pinnedIds.has(message.id)} />
                  ) : null}
                  {!message.removed && you?.moderator && !mine ? (
                    <button
                      type="button"
                      className="text-xs text-muted underline hover:text-red-400"
                      onClick={() => setModerating(message)}
                    >
                      Moderate
                    </button>
                  ) : null}
                </p>
                <MessageText message={message} me={you} />
              </li>
            );
          })}
        </ol>
      </div>
      <p className="h-5 px-4 text-xs text-muted italic sm:px-5" aria-live="polite">
        {typingText(othersTyping)}
      </p>
      {closed ? (
        <p role="alert" className="border-t border-line p-3 text-sm text-red-300">
          {closed.message}
        </p>
      ) : you && !you.canPost ? (
        <p className="border-t border-line p-3 text-sm text-muted">Only staff post in {heading}. You will see every announcement here.</p>
      ) : (
        <>
          {mutedUntil !== null && mutedUntil > now ? (
            <p role="status" className="border-t border-line px-4 pt-2 text-xs text-yellow-300 sm:px-5">
              {mutedMessage(mutedUntil, now)} You can still read the chat.
            </p>
          ) : null}
          <ChatComposer
            disabled={connection.state !== "open"}
            onSend={(content) => send({ type: "send", content }, "Failed to send message")}
            onTyping={() => send({ type: "typing" })}
            onMentionQuery={askMentionable}
            suggestions={suggestions}
          />
        </>
      )}
      <ReportDialog room={room} message={reporting} onClose={() => setReporting(null)} />
      <ModerateDialog room={room} message={moderating} onClose={() => setModerating(null)} />
    </Card>
  );
}
