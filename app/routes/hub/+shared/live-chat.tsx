// The hub's live chat: a WebSocket to the chat room, reconnecting with backoff when it drops.
import { type FormEvent, useCallback, useEffect, useRef, useState } from "react";
import { type ChatMember, type ChatMessage, type ClientFrame, MAX_MESSAGE_LENGTH, parseServerFrame, SESSION_ENDED_CLOSE } from "~/lib/chat";
import { MessageCircle, Send } from "~/components/icons";
import { LocalTime } from "~/components/local-time";
import { useToast } from "~/components/toaster";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { inputClass } from "~/components/ui/input-class";

type Connection = { state: "connecting" } | { state: "open" } | { state: "waiting"; retryAt: number } | { state: "signed-out" };

const MAX_BACKOFF_MS = 30_000;
const TYPING_EVERY_MS = 1000;

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
          : `Reconnecting in ${Math.max(1, Math.ceil((connection.retryAt - now) / 1000))}s`;
  const dot = connection.state === "open" ? "bg-green-500" : connection.state === "connecting" ? "bg-yellow-400" : "bg-red-500";
  return (
    <span role="status" className="flex items-center gap-2 text-xs text-muted">
      <span className={`size-2 rounded-full ${dot}`} aria-hidden /> {label}
    </span>
  );
}

export function LiveChat() {
  const [connection, setConnection] = useState<Connection>({ state: "connecting" });
  const [messages, setMessages] = useState<ChatMessage[]>([]);
  const [me, setMe] = useState<ChatMember | null>(null);
  const [typing, setTyping] = useState<ChatMember[]>([]);
  const [draft, setDraft] = useState("");
  const socketRef = useRef<WebSocket | null>(null);
  const lastTypingRef = useRef(0);
  const logRef = useRef<HTMLDivElement>(null);
  const { toast } = useToast();

  useEffect(() => {
    let attempt = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;

    const signedOut = () => {
      stopped = true;
      socketRef.current = null;
      setTyping([]);
      setConnection({ state: "signed-out" });
    };

    const connect = () => {
      setConnection({ state: "connecting" });
      const socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/chat/ws`);
      socketRef.current = socket;
      // Handlers of a socket that has been replaced (or torn down) do nothing.
      const current = () => socketRef.current === socket && !stopped;
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
        if (frame.type === "history") {
          setMessages(frame.messages);
          setMe(frame.you);
        } else if (frame.type === "message") {
          setMessages((all) => [...all.filter((m) => m.id !== frame.message.id), frame.message].slice(-200));
        } else if (frame.type === "deleted") {
          setMessages((all) => all.filter((m) => m.id !== frame.id));
        } else if (frame.type === "typing") {
          setTyping(frame.members);
        } else if (frame.type === "error") {
          toast({
            title: frame.action === "delete" ? "Failed to delete message" : "Failed to send message",
            description: frame.message,
            variant: "destructive",
          });
        } else if (frame.type === "session-ended") {
          signedOut();
          socket.close(SESSION_ENDED_CLOSE, "Session ended");
        }
      };
      socket.onclose = (event) => {
        if (!current()) return;
        socketRef.current = null;
        setTyping([]);
        // The session behind this socket has ended: reconnecting would only be refused.
        if (event.code === SESSION_ENDED_CLOSE) return signedOut();
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
  }, [toast]);

  useEffect(() => {
    const log = logRef.current;
    if (log) log.scrollTop = log.scrollHeight;
  }, [messages.length]);

  const sendFrame = useCallback(
    (frame: ClientFrame, failure: string) => {
      const socket = socketRef.current;
      if (!socket || socket.readyState !== WebSocket.OPEN) {
        toast({ title: failure, description: "The chat is not connected right now.", variant: "destructive" });
        return false;
      }
      socket.send(JSON.stringify(frame));
      return true;
    },
    [toast],
  );

  function submit(event: FormEvent) {
    event.preventDefault();
    const content = draft.trim();
    if (!content) return;
    if (sendFrame({ type: "send", content }, "Failed to send message")) setDraft("");
  }

  function onDraft(value: string) {
    setDraft(value);
    const now = Date.now();
    if (value.trim() && now - lastTypingRef.current > TYPING_EVERY_MS && socketRef.current?.readyState === WebSocket.OPEN) {
      lastTypingRef.current = now;
      socketRef.current.send(JSON.stringify({ type: "typing" } satisfies ClientFrame));
    }
  }

  const othersTyping = typing.filter((m) => m.userId !== me?.userId);

  return (
    <Card padding="p-0" className="flex flex-col">
      <div className="flex items-center justify-between gap-3 border-b border-line px-4 py-3 sm:px-5">
        <h2 className="flex items-center gap-2 font-bold">
          <MessageCircle className="size-5 text-accent" aria-hidden /> Live Chat
        </h2>
        <ConnectionBadge connection={connection} />
      </div>
      {/* The log is the scrolling, announced region; the messages inside it are a plain list. */}
      <div ref={logRef} role="log" aria-live="polite" aria-label="Chat messages" className="h-80 overflow-y-auto px-4 py-4 sm:px-5">
        {messages.length === 0 ? <p className="text-sm text-muted">No messages yet. Say hello!</p> : null}
        <ol className="space-y-3">
          {messages.map((message) => {
            const mine = message.userId === me?.userId;
            return (
              <li key={message.id} className="text-sm">
                <p className="flex items-baseline gap-2">
                  <span className={`font-semibold ${mine ? "text-accent" : ""}`}>{message.username}</span>
                  <LocalTime ms={message.createdAt} format="time" className="text-xs text-muted" />
                  {mine ? (
                    <button
                      type="button"
                      className="text-xs text-muted underline hover:text-red-400"
                      onClick={() => sendFrame({ type: "delete", id: message.id }, "Failed to delete message")}
                    >
                      Delete
                    </button>
                  ) : null}
                </p>
                <p className="break-words whitespace-pre-wrap text-zinc-200">{message.content}</p>
              </li>
            );
          })}
        </ol>
      </div>
      <p className="h-5 px-4 text-xs text-muted italic sm:px-5" aria-live="polite">
        {typingText(othersTyping)}
      </p>
      <form onSubmit={submit} className="flex gap-2 border-t border-line p-3">
        <label htmlFor="chat-message" className="sr-only">
          Message
        </label>
        <input
          id="chat-message"
          value={draft}
          onChange={(e) => onDraft(e.target.value)}
          maxLength={MAX_MESSAGE_LENGTH}
          placeholder="Type a message..."
          autoComplete="off"
          className={inputClass}
        />
        <Button type="submit" disabled={!draft.trim() || connection.state !== "open"} aria-label="Send message">
          <Send className="size-4" aria-hidden />
        </Button>
      </form>
    </Card>
  );
}
